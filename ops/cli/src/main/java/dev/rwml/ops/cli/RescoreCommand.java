package dev.rwml.ops.cli;

import dev.rwml.reward.RewardApp;
import dev.rwml.reward.RewardConfig;
import dev.rwml.reward.RewardStage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.streams.KafkaStreams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml rescore}: recomputes the rewards of an existing run's predictions with another reward
 * spec into a new run, without generating again, and exits once no new rewards arrive.
 */
@Command(
        name = "rescore",
        footer = {
            "",
            "Examples:",
            "  ./rwml rescore --run r1-exact --from-run r1 --reward-spec alfworld/TEXT=exact"
        },
        mixinStandardHelpOptions = true,
        description = {
            "Score the predictions of --from-run again with --reward-spec into the rewards of a new"
                    + " --run (rwml.<run>.rewards), then exit when no new rewards have arrived for"
                    + " --idle.",
            "Reward spec: [env/]KIND=method[:threshold],... over the paper's defaults, e.g."
                    + " TEXT=cosine:0.9 or alfworld/TEXT=exact or retail/TOOL_RESULT=rouge:0.6."
        })
final class RescoreCommand implements Callable<Integer> {

    @Option(
            names = "--run",
            required = true,
            paramLabel = "NAME",
            description = "The new run that receives the rewards.")
    private String run;

    @Option(
            names = "--from-run",
            required = true,
            paramLabel = "NAME",
            description = "The run whose predictions are rescored.")
    private String fromRun;

    @Option(
            names = "--reward-spec",
            required = true,
            paramLabel = "SPEC",
            description = "The reward specs to apply (see above).")
    private String rewardSpec;

    @Option(
            names = "--idle",
            defaultValue = "PT20S",
            paramLabel = "DURATION",
            description = "Exit when no reward arrived for this long (default: ${DEFAULT-VALUE}).")
    private Duration idle;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final RewardConfig config =
                RewardCommand.config(
                        run,
                        cluster,
                        settings,
                        Map.of("source.run", fromRun, "reward.spec", rewardSpec));
        if (!config.isRescore()) {
            throw new IllegalArgumentException(
                    "--run must name a new run, different from --from-run " + fromRun);
        }
        final PrintWriter out = spec.commandLine().getOut();
        try (RewardStage stage = RewardApp.start(config, new SimpleMeterRegistry())) {
            long last = -1;
            long lastChange = System.nanoTime();
            while (System.nanoTime() - lastChange < idle.toNanos()) {
                if (stage.state() == KafkaStreams.State.ERROR
                        || stage.state() == KafkaStreams.State.NOT_RUNNING) {
                    out.println("rwml rescore: the reward stage stopped (" + stage.state() + ")");
                    return 1;
                }
                final long rewarded = (long) stage.metrics().groupCount();
                if (rewarded != last) {
                    out.printf("rwml rescore: %d groups rescored into run %s%n", rewarded, run);
                    out.flush();
                    last = rewarded;
                    lastChange = System.nanoTime();
                }
                Thread.sleep(1_000);
            }
            out.printf(
                    "rwml rescore: done, %d groups of run %s rescored into run %s%n",
                    last, fromRun, run);
            return 0;
        }
    }
}
