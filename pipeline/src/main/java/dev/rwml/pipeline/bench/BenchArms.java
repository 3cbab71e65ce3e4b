package dev.rwml.pipeline.bench;

import dev.rwml.env.EnvKind;
import dev.rwml.events.ModelVersion;
import dev.rwml.pipeline.bench.BenchState.Slice;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.pipeline.replay.FilterPass;
import dev.rwml.pipeline.replay.ReplayRun;
import dev.rwml.pipeline.replay.SliceBound;
import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.pipeline.watch.RunProgress;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.trainer.TrainerConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Trains the filter model and the arms by replaying a slice into fresh runs copied from the base
 * (the filtered arms after the offline filter pass), and finds the versions at which the other arms
 * have taken as many optimizer steps as RWML.
 */
final class BenchArms {

    private final Connection connection;
    private final BenchRun.Settings settings;
    private final RunOutput output;

    BenchArms(
            final Connection connection, final BenchRun.Settings settings, final RunOutput output) {
        this.connection = connection;
        this.settings = settings;
        this.output = output;
    }

    /**
     * The model that judges the slices for the filtered arms.
     *
     * @param run its run
     * @param version its version
     */
    record FilterModel(String run, long version) {

        /** As a marker holds it: {@code run@version}. */
        String text() {
            return run + "@" + version;
        }

        /** Reads {@link #text()}. */
        static FilterModel parse(final String text) {
            final int at = text.lastIndexOf('@');
            return new FilterModel(text.substring(0, at), Long.parseLong(text.substring(at + 1)));
        }
    }

    /**
     * The paper's filter model: a copy of the base SFT'd on the validation slice (the trainer's
     * {@code sft} objective, the bench's epochs); its last version.
     */
    FilterModel trainFilterModel(final Slice validation) throws InterruptedException {
        final String run = freshRun(BenchRun.FILTER_RUN);
        final Map<String, Map<String, String>> stages = stages(0, validation, false);
        stages.get("prediction.").putAll(stage(Arm.WM_SFT.settings(), "prediction."));
        stages.get("trainer.").putAll(stage(Arm.WM_SFT.settings(), "trainer."));
        replay(run, validation, stages, Optional.empty(), Optional.empty());
        final List<ModelVersion> versions = RunVersions.of(connection, run);
        return new FilterModel(run, versions.get(versions.size() - 1).getVersion());
    }

    /**
     * Replays seed {@code seed}'s slice into a fresh run from a copy of the base; its name. The
     * replay's panel shows {@code arms}, the bench's arms done so far.
     */
    String train(
            final Arm arm,
            final int seed,
            final Slice slice,
            final Optional<FilterModel> filter,
            final LiveFacts.Bar arms)
            throws InterruptedException {
        final String run = freshRun("bench-" + arm.id() + "-s" + seed);
        final Map<String, Map<String, String>> stages = stages(seed, slice, arm.filtered());
        final Map<String, String> over = new LinkedHashMap<>(arm.settings());
        over.putAll(settings.training().armSettings().getOrDefault(arm, Map.of()));
        stages.forEach((prefix, kv) -> kv.putAll(stage(over, prefix)));
        replay(run, slice, stages, arm.filtered() ? filter : Optional.empty(), Optional.of(arms));
        return run;
    }

    /** The run named {@code name}, or a fresh name when an interrupted attempt left versions. */
    private String freshRun(final String name) {
        String run = name;
        for (int attempt = 2; !RunVersions.of(connection, run).isEmpty(); attempt++) {
            // An earlier attempt was interrupted: its run holds a partial lineage.
            run = name + "-r" + attempt;
        }
        return run;
    }

    private void replay(
            final String run,
            final Slice slice,
            final Map<String, Map<String, String>> stages,
            final Optional<FilterModel> filter,
            final Optional<LiveFacts.Bar> arms)
            throws InterruptedException {
        final Map<String, String> filterSettings = stages.get("filter.");
        filter.ifPresent(f -> filterSettings.put("filter.version", Long.toString(f.version())));
        final ReplayRun replay = new ReplayRun(connection, output);
        (arms.isPresent() ? replay.within(arms.get()) : replay)
                .run(
                        new ReplayRun.Settings(
                                run,
                                Optional.of(BenchRun.BASE_RUN),
                                SliceBound.offsets(slice.from()),
                                SliceBound.offsets(slice.until()),
                                settings.training().epochs(),
                                settings.training().roundTransitions(),
                                settings.dir().resolve("state").resolve(run),
                                stages.get("prediction."),
                                stages.get("reward."),
                                stages.get("trainer."),
                                filter.map(FilterModel::run),
                                filterSettings));
    }

    /** The keys of {@code settings} under {@code prefix}, the prefix removed. */
    private static Map<String, String> stage(
            final Map<String, String> settings, final String prefix) {
        final Map<String, String> out = new LinkedHashMap<>();
        settings.forEach(
                (k, v) -> {
                    if (k.startsWith(prefix)) {
                        out.put(k.substring(prefix.length()), v);
                    }
                });
        return out;
    }

    /**
     * Per seed and for each other arm, the version whose optimizer steps (summed over its versions
     * after 0) first reach those of the RWML arm's last version: the arms compared after the same
     * number of updates. A version that is its run's last is left out, being evaluated anyway.
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
                    byArm.forEach(
                            (arm, run) -> {
                                if (arm != Arm.RWML) {
                                    match(seed, arm, run, rwmlSteps)
                                            .ifPresent(v -> matched.put(run, v));
                                }
                            });
                });
        return matched;
    }

    /** The optimizer steps of {@code run} up to and including {@code version}. */
    long stepsAt(final String run, final long version) {
        long steps = 0;
        for (final ModelVersion m : RunVersions.of(connection, run)) {
            if (m.getVersion() <= version) {
                steps += stepsOf(m);
            }
        }
        return steps;
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
        output.say(
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

    /**
     * The bench's settings of every stage for one seed's slice, keyed by prefix: prediction
     * (sampling seeded by the seed, so the arms of one seed sample alike), reward (subsampling
     * seeded alike), trainer (warmup as a fraction of the slice's most steps) and filter.
     */
    private Map<String, Map<String, String>> stages(
            final int seed, final Slice slice, final boolean filtered) {
        final DemoSettings d = settings.demo();
        final BenchRun.Training t = settings.training();
        final Map<String, String> prediction = new LinkedHashMap<>();
        prediction.put(PredictionConfig.GROUP_SIZE, Integer.toString(d.groupSize()));
        prediction.put("sampling.max.new.tokens", Integer.toString(t.maxNewTokens()));
        prediction.put(PredictionConfig.BATCH_SIZE, Integer.toString(d.predictionBatch()));
        prediction.put("select.envs", EnvKind.ALFWORLD.id());
        prediction.put("sampling.seed", Integer.toString(seed));
        final Map<String, String> reward = new LinkedHashMap<>();
        reward.put("subsample.seed", Integer.toString(seed));
        final Map<String, String> filter = new LinkedHashMap<>();
        filter.put("tries", Integer.toString(t.filterTries()));
        filter.put("sampling.max.new.tokens", Integer.toString(t.maxNewTokens()));
        filter.put("subsample.seed", Integer.toString(seed));
        if (!d.rewardSpec().isBlank()) {
            reward.put("reward.spec", d.rewardSpec());
            filter.put("reward.spec", d.rewardSpec());
        }
        final long transitions = slice.transitions();
        final long mostSteps = Math.max(1, transitions * t.epochs() / t.groupsPerStep());
        final Map<String, String> trainer = new LinkedHashMap<>();
        trainer.put("groups.per.step", Integer.toString(t.groupsPerStep()));
        trainer.put(TrainerConfig.PUBLISH_EVERY_STEPS, Integer.toString(d.publishEverySteps()));
        trainer.put("learning.rate", Double.toString(t.learningRate()));
        trainer.put("warmup.steps", Long.toString(Math.round(t.warmupFraction() * mostSteps)));
        trainer.put("keep.versions", "100000");
        final Map<String, Map<String, String>> stages = new LinkedHashMap<>();
        stages.put("prediction.", prediction);
        stages.put("reward.", reward);
        stages.put("trainer.", trainer);
        stages.put("filter.", filtered ? filter : new LinkedHashMap<>());
        return stages;
    }

    /**
     * What the offline filter decided on {@code run}'s slice, read back from its verdicts.
     *
     * @param judged transitions judged
     * @param easy judged easy
     * @param kept passed on to training
     * @param thresholdForPaperFraction the data-stage similarity above which 30% would be easy
     */
    record Filtered(long judged, long easy, long kept, double thresholdForPaperFraction) {}

    /** The verdicts of the filter pass of a filtered arm's run. */
    Filtered filtered(final String run) {
        final String verdicts = TopicCatalog.defaults().run(run).difficulty().name();
        try (RunProgress progress = new RunProgress(run, connection)) {
            progress.committedRecords(verdicts);
            final RunProgress.FilterCounts counts = progress.readOn(Set.of(verdicts)).filter();
            return new Filtered(
                    counts.judged(),
                    counts.easy(),
                    counts.kept(),
                    progress.thresholdForEasyFraction(FilterPass.PAPER_EASY_FRACTION));
        }
    }
}
