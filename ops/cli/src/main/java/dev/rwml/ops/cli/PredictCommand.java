package dev.rwml.ops.cli;

import dev.rwml.prediction.PredictionApp;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.worldmodel.ModelRuntime;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code rwml predict}: runs the prediction stage of a run until Ctrl-C. */
@Command(
        name = "predict",
        footer = {
            "",
            "Examples:",
            "  ./rwml predict --run r1",
            "  ./rwml predict --run r1 --set input=curriculum --device cpu"
        },
        mixinStandardHelpOptions = true,
        description =
                "Sample G world-model predictions for each transition of rwml.transitions into"
                        + " rwml.<run>.predictions, following the run's model versions.")
final class PredictCommand extends StageCommand {

    @Mixin private DeviceOption device;

    PredictCommand() {
        super(PredictionConfig.DEFINITION);
    }

    @Override
    protected IntSupplier load() {
        final PredictionConfig config =
                PredictionConfig.load(
                        settings.sources(
                                cluster,
                                StageSettings.flags(
                                        "run", run, ModelRuntime.DEVICE, device.device)));
        return () -> PredictionApp.run(config);
    }
}
