package dev.rwml.ops.cli;

import dev.rwml.ops.cli.metrics.MetricsOptions;
import dev.rwml.prediction.PredictionApp;
import dev.rwml.prediction.PredictionConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml predict}: runs the prediction stage of a run until Ctrl-C. */
@Command(
        name = "predict",
        mixinStandardHelpOptions = true,
        description =
                "Sample G world-model predictions for each transition of rwml.transitions into"
                        + " rwml.<run>.predictions, following the run's model versions.")
final class PredictCommand implements Callable<Integer> {

    @Option(names = "--run", paramLabel = "NAME", description = "The run.")
    private String run;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Mixin private MetricsOptions metrics;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() {
        if (settings.printedHelp(PredictionConfig.DEFINITION, spec.commandLine().getOut())) {
            return 0;
        }
        final PredictionConfig config =
                PredictionConfig.load(settings.sources(cluster, StageSettings.flags("run", run)));
        try (MetricsOptions.Exposure endpoint = metrics.expose()) {
            return PredictionApp.run(config);
        }
    }
}
