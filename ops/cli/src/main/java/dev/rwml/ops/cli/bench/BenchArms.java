package dev.rwml.ops.cli.bench;

import dev.rwml.env.EnvKind;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.cli.Progress;
import dev.rwml.ops.cli.bench.BenchState.Slice;
import dev.rwml.ops.cli.demo.DemoSettings;
import dev.rwml.ops.cli.replay.ReplayRun;
import dev.rwml.ops.cli.replay.SliceBound;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.trainer.TrainerConfig;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Trains the arms by replaying a seed's slice into fresh runs copied from the base, and finds the
 * versions at which the other arms have taken as many optimizer steps as RWML.
 */
final class BenchArms {

    private final Connection connection;
    private final BenchRun.Settings settings;
    private final PrintWriter out;

    BenchArms(
            final Connection connection, final BenchRun.Settings settings, final PrintWriter out) {
        this.connection = connection;
        this.settings = settings;
        this.out = out;
    }

    /** Replays seed {@code seed}'s slice into a fresh run from a copy of the base; its name. */
    String train(final Arm arm, final int seed, final Slice slice) throws InterruptedException {
        String run = "bench-" + arm.id() + "-s" + seed;
        for (int attempt = 2; !RunVersions.of(connection, run).isEmpty(); attempt++) {
            // An earlier attempt was interrupted: its run holds a partial lineage.
            run = "bench-" + arm.id() + "-s" + seed + "-r" + attempt;
        }
        final Map<String, String> reward = reward(seed);
        reward.putAll(arm.reward());
        final Map<String, String> trainer = trainer();
        trainer.putAll(arm.trainer());
        new ReplayRun(connection, out)
                .run(
                        new ReplayRun.Settings(
                                run,
                                Optional.of(BenchRun.BASE_RUN),
                                SliceBound.offsets(slice.from()),
                                SliceBound.offsets(slice.until()),
                                settings.epochs(),
                                settings.dir().resolve("state").resolve(run),
                                prediction(seed),
                                reward,
                                trainer));
        return run;
    }

    /**
     * Per seed and for each other arm, the version whose optimizer steps (summed over its versions
     * after 0) first reach those of the RWML arm's last version: the arms compared after the same
     * number of updates, as the paper compares changed parameters. WM-SFT trains on every group and
     * RWML without subsampling keeps the easy ones, so on one slice both take more steps than RWML.
     * A version that is its run's last is left out, being evaluated anyway.
     *
     * @param runs each seed's run of each arm
     * @return the matched version by run
     */
    Map<String, Long> matchedUpdates(final Map<Integer, Map<Arm, String>> runs) {
        final Map<String, Long> matched = new LinkedHashMap<>();
        runs.forEach(
                (seed, byArm) -> {
                    final String rwml = byArm.get(Arm.RWML);
                    if (rwml == null) {
                        return;
                    }
                    final long rwmlSteps = steps(RunVersions.of(connection, rwml));
                    for (final Arm arm : List.of(Arm.WM_SFT, Arm.RWML_NO_SUBSAMPLING)) {
                        final String run = byArm.get(arm);
                        if (run != null) {
                            match(seed, arm, run, rwmlSteps).ifPresent(v -> matched.put(run, v));
                        }
                    }
                });
        return matched;
    }

    /** The first version of {@code run} with {@code rwmlSteps} steps, unless it is the last. */
    private Optional<Long> match(
            final int seed, final Arm arm, final String run, final long rwmlSteps) {
        final List<ModelVersion> versions = RunVersions.of(connection, run);
        long steps = 0;
        long version = -1;
        for (final ModelVersion m : versions) {
            steps += stepsOf(m);
            version = m.getVersion();
            if (steps >= rwmlSteps) {
                break;
            }
        }
        final boolean last = version == versions.get(versions.size() - 1).getVersion();
        Progress.say(
                out,
                "Seed %d: %s version %d has %d optimizer steps, RWML's last version %d%s",
                seed,
                arm.id(),
                version,
                steps,
                rwmlSteps,
                last ? " (its last version: nothing more to compare)" : "");
        return last ? Optional.empty() : Optional.of(version);
    }

    private static long steps(final List<ModelVersion> versions) {
        long steps = 0;
        for (final ModelVersion m : versions) {
            steps += stepsOf(m);
        }
        return steps;
    }

    /** A version's optimizer steps; version 0 is the copied base, its counters the base's SFT. */
    private static long stepsOf(final ModelVersion m) {
        return m.getVersion() == 0 ? 0 : m.getCounters().getSteps();
    }

    private Map<String, String> prediction(final int seed) {
        final DemoSettings d = settings.demo();
        final Map<String, String> prediction = new LinkedHashMap<>();
        prediction.put(PredictionConfig.GROUP_SIZE, Integer.toString(d.groupSize()));
        prediction.put("sampling.max.new.tokens", Integer.toString(d.maxNewTokens()));
        prediction.put(PredictionConfig.BATCH_SIZE, Integer.toString(d.predictionBatch()));
        prediction.put("select.envs", EnvKind.ALFWORLD.id());
        // the arms of one seed sample alike; other seeds sample independently
        prediction.put("sampling.seed", Integer.toString(seed));
        return prediction;
    }

    private Map<String, String> reward(final int seed) {
        final Map<String, String> reward = new LinkedHashMap<>();
        reward.put("subsample.seed", Integer.toString(seed));
        if (!settings.demo().rewardSpec().isBlank()) {
            reward.put("reward.spec", settings.demo().rewardSpec());
        }
        return reward;
    }

    private Map<String, String> trainer() {
        final DemoSettings d = settings.demo();
        final Map<String, String> trainer = new LinkedHashMap<>();
        trainer.put("groups.per.step", Integer.toString(d.groupsPerStep()));
        trainer.put(TrainerConfig.PUBLISH_EVERY_STEPS, Integer.toString(d.publishEverySteps()));
        trainer.put("learning.rate", Double.toString(d.learningRate()));
        trainer.put("keep.versions", "100000");
        return trainer;
    }
}
