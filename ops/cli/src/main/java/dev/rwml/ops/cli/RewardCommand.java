package dev.rwml.ops.cli;

import dev.rwml.ops.cli.metrics.MetricsOptions;
import dev.rwml.reward.RewardApp;
import dev.rwml.reward.RewardConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml reward}: runs the reward stage of a run until Ctrl-C. */
@Command(
        name = "reward",
        mixinStandardHelpOptions = true,
        description =
                "Join rwml.<run>.predictions with rwml.transitions, score each prediction against"
                        + " the observed next state and write rwml.<run>.rewards.")
final class RewardCommand implements Callable<Integer> {

    @Option(names = "--run", paramLabel = "NAME", description = "The run.")
    private String run;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Mixin private MetricsOptions metrics;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() {
        if (settings.printedHelp(RewardConfig.DEFINITION, spec.commandLine().getOut())) {
            return 0;
        }
        final RewardConfig config = config(run, cluster, settings, Map.of());
        try (MetricsOptions.Exposure endpoint = metrics.expose()) {
            return RewardApp.run(config);
        }
    }

    /** The reward settings of a run from the command line, the file and the environment. */
    static RewardConfig config(
            final String run,
            final ClusterOptions cluster,
            final StageSettings settings,
            final Map<String, String> extra) {
        final Map<String, String> flags = new LinkedHashMap<>(StageSettings.flags("run", run));
        flags.putAll(extra);
        return RewardConfig.load(settings.sources(cluster, flags));
    }
}
