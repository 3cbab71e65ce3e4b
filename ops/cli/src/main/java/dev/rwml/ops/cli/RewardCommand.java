package dev.rwml.ops.cli;

import dev.rwml.reward.RewardApp;
import dev.rwml.reward.RewardConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;

/** {@code rwml reward}: runs the reward stage of a run until Ctrl-C. */
@Command(
        name = "reward",
        footer = {
            "",
            "Examples:",
            "  ./rwml reward --run r1",
            "  ./rwml reward --run r1 --set easy.keep.probability=1"
        },
        mixinStandardHelpOptions = true,
        description =
                "Join rwml.<run>.predictions with rwml.transitions, score each prediction against"
                        + " the observed next state and write rwml.<run>.rewards.")
final class RewardCommand extends StageCommand {

    RewardCommand() {
        super(RewardConfig.DEFINITION);
    }

    @Override
    protected IntSupplier load() {
        final RewardConfig config = config(run, cluster, settings, Map.of());
        return () -> RewardApp.run(config);
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
