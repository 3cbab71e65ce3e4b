package dev.rwml.ops.cli;

import dev.rwml.ops.cli.metrics.MetricsOptions;
import dev.rwml.prediction.PredictionApp;
import dev.rwml.prediction.PredictionConfig;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code rwml predict}: runs the prediction stage of a run until Ctrl-C. */
@Command(
        name = "predict",
        mixinStandardHelpOptions = true,
        description =
                "Sample G world-model predictions for each transition of rwml.transitions into"
                        + " rwml.<run>.predictions, following the run's model versions.")
final class PredictCommand implements Callable<Integer> {

    @Option(names = "--run", required = true, paramLabel = "NAME", description = "The run.")
    private String run;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Mixin private MetricsOptions metrics;

    @Override
    public Integer call() {
        final PredictionConfig config =
                PredictionConfig.load(
                        settings.file,
                        System.getenv(),
                        settings.with(
                                Map.of(
                                        "run", run,
                                        "bootstrap.servers", cluster.bootstrapServers(),
                                        "schema.registry.url", cluster.schemaRegistryUrl())));
        try (MetricsOptions.Exposure endpoint = metrics.expose()) {
            return PredictionApp.run(config);
        }
    }
}
