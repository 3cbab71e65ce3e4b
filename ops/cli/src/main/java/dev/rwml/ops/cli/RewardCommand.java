package dev.rwml.ops.cli;

import dev.rwml.ops.cli.metrics.MetricsOptions;
import dev.rwml.reward.RewardApp;
import dev.rwml.reward.RewardConfig;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code rwml reward}: runs the reward stage of a run until Ctrl-C. */
@Command(
        name = "reward",
        mixinStandardHelpOptions = true,
        description =
                "Join rwml.<run>.predictions with rwml.transitions, score each prediction against"
                        + " the observed next state and write rwml.<run>.rewards.")
final class RewardCommand implements Callable<Integer> {

    @Option(names = "--run", required = true, paramLabel = "NAME", description = "The run.")
    private String run;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Mixin private MetricsOptions metrics;

    @Override
    public Integer call() throws InterruptedException {
        try (MetricsOptions.Exposure endpoint = metrics.expose()) {
            RewardApp.run(config(run, cluster, settings, Map.of()));
        }
        return 0;
    }

    /** The reward settings of a run from the command line, the file and the environment. */
    static RewardConfig config(
            final String run,
            final ClusterOptions cluster,
            final StageSettings settings,
            final Map<String, String> extra) {
        final Map<String, String> fromOptions =
                new java.util.LinkedHashMap<>(
                        Map.of(
                                "run", run,
                                "bootstrap.servers", cluster.bootstrapServers(),
                                "schema.registry.url", cluster.schemaRegistryUrl()));
        fromOptions.putAll(extra);
        return RewardConfig.load(settings.file, System.getenv(), settings.with(fromOptions));
    }
}
