package dev.rwml.ops.cli;

import dev.rwml.trainer.TrainerApp;
import dev.rwml.trainer.TrainerConfig;
import dev.rwml.worldmodel.ModelRuntime;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code rwml train}: runs the continual trainer of a run until Ctrl-C. */
@Command(
        name = "train",
        footer = {
            "",
            "Examples:",
            "  ./rwml train --run r1",
            "  ./rwml train --run r1 --set objective=sft"
        },
        mixinStandardHelpOptions = true,
        description =
                "Train the run's world model on rwml.<run>.rewards (GRPO, or SFT for the WM-SFT"
                        + " baseline) and publish versions to rwml.<run>.models, exactly once with"
                        + " the consumed offsets.")
final class TrainCommand extends StageCommand {

    @Mixin private DeviceOption device;

    @Option(
            names = "--objective",
            paramLabel = "grpo|sft",
            description = "The training objective (default: grpo, or the config's).")
    private String objective;

    @Option(
            names = "--recipe",
            paramLabel = "grpo|dr-grpo|dapo",
            description =
                    "The loss recipe: the defaults of loss.aggregation, clip.epsilon.low/high and"
                            + " kl.coefficient (default: grpo, or the config's).")
    private String recipe;

    TrainCommand() {
        super(TrainerConfig.DEFINITION);
    }

    @Override
    protected IntSupplier load() {
        final TrainerConfig config =
                TrainerConfig.load(
                        settings.sources(
                                cluster,
                                StageSettings.flags(
                                        "run",
                                        run,
                                        "objective",
                                        objective,
                                        "recipe",
                                        recipe,
                                        ModelRuntime.DEVICE,
                                        device.device)));
        return () -> TrainerApp.run(config);
    }
}
