package dev.rwml.ops.cli.bench;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.env.EnvKind;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.evaluation.AgentEvaluation;
import dev.rwml.evaluation.Bootstrap;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.EvalSettings;
import dev.rwml.evaluation.Evaluation;
import dev.rwml.evaluation.GuidedAgent;
import dev.rwml.evaluation.HeldOutSet;
import dev.rwml.evaluation.ModelCatalog;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.Progress;
import dev.rwml.ops.cli.demo.DemoSettings;
import dev.rwml.ops.cli.eval.ReportWriter;
import dev.rwml.ops.cli.replay.ReplayRun;
import dev.rwml.ops.cli.replay.SliceBound;
import dev.rwml.ops.embedded.EmbeddedCluster;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.trainer.TrainerConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The paper's comparison at small scale, on the embedded cluster under one directory: one base
 * world model (version 0 of run {@code bench-base}) trained by SFT on a pretraining slice, then per
 * seed one RWML data slice of new episodes and four arms trained from copies of the same base on
 * that same slice: the base itself (no training), WM-SFT (the trainer's {@code sft} objective on
 * the observed next states), RWML (GRPO with the too-easy subsampling) and RWML without subsampling
 * ({@code easy.keep.probability=1}); then {@code rwml eval} with the guided agent on every trained
 * model and the base.
 *
 * <p>Resumable: the cluster keeps its topics under the directory, {@code bench.properties} records
 * the settings and the slices' offsets, and a finished step writes a marker under {@code done/}; a
 * rerun skips what is marked, and an arm that was interrupted is trained again into a fresh run.
 */
public final class BenchRun {

    /** The base model's run. */
    public static final String BASE_RUN = "bench-base";

    /** The trained arms: name and the replay settings that make it. */
    public enum Arm {
        /** The trainer's SFT objective on the observed next states. */
        WM_SFT("wm-sft", Map.of("trainer.objective", "sft")),
        /** GRPO on the sim-to-real reward, too-easy groups mostly dropped. */
        RWML("rwml", Map.of()),
        /** GRPO without the too-easy subsampling. */
        RWML_NO_SUBSAMPLING("rwml-nosub", Map.of("reward.easy.keep.probability", "1"));

        private final String id;
        private final Map<String, String> settings;

        Arm(final String id, final Map<String, String> settings) {
            this.id = id;
            this.settings = settings;
        }

        /** The arm's name in run names and tables. */
        public String id() {
            return id;
        }
    }

    /**
     * What to run.
     *
     * @param dir the bench's directory: cluster, stream state, markers, report
     * @param demo model size, base SFT steps, pretraining episodes and the stages' settings
     * @param seeds how many seeds (data slices), at least 1
     * @param sliceEpisodes RWML episodes per seed
     * @param epochs how many times each arm replays its slice
     * @param evalTransitions held-out transitions per split
     * @param evalSamples samples per held-out transition
     * @param bootstrap bootstrap resamples
     * @param agentEpisodes guided-agent episodes per split
     */
    public record Settings(
            Path dir,
            DemoSettings demo,
            int seeds,
            int sliceEpisodes,
            int epochs,
            int evalTransitions,
            int evalSamples,
            int bootstrap,
            int agentEpisodes) {
        public Settings {
            if (seeds < 1) {
                throw new IllegalArgumentException("--seeds must be at least 1, got " + seeds);
            }
            if (sliceEpisodes < 1 || epochs < 1) {
                throw new IllegalArgumentException("--episodes and --epochs must be at least 1");
            }
            dir = dir.toAbsolutePath();
        }

        /** What must match for a rerun to resume (everything that changes a result). */
        Map<String, String> identity() {
            final Map<String, String> m = new TreeMap<>();
            m.put("model", demo.modelPreset());
            m.put("init.steps", Integer.toString(demo.initSteps()));
            m.put("pretrain.episodes", Integer.toString(demo.pretrainEpisodes()));
            m.put("slice.episodes", Integer.toString(sliceEpisodes));
            m.put("epochs", Integer.toString(epochs));
            m.put("epsilon", Double.toString(demo.epsilon()));
            return m;
        }
    }

    /**
     * What the bench produced.
     *
     * @param report the evaluation of every model
     * @param reportDir where report.html, report.md and the CSV files are
     * @param trainedArms arms trained by this invocation (the others were already done)
     */
    public record Result(EvalReport report, Path reportDir, int trainedArms) {}

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private final Settings settings;
    private final PrintWriter out;
    private final Properties state = new Properties();

    public BenchRun(final Settings settings, final PrintWriter out) {
        this.settings = settings;
        this.out = out;
    }

    /** Runs what is not done yet, then evaluates everything. */
    public Result run() throws IOException, InterruptedException {
        Files.createDirectories(settings.dir().resolve("done"));
        loadState();
        say("Starting the embedded Kafka broker and schema registry under %s ...", settings.dir());
        try (EmbeddedCluster cluster = EmbeddedCluster.start(settings.dir().resolve("cluster"))) {
            final Connection connection =
                    Connection.of(cluster.bootstrapServers(), cluster.schemaRegistryUrl());
            final TopicCatalog catalog = TopicCatalog.defaults();
            try (Admin admin = connection.admin()) {
                final List<dev.rwml.schemas.topics.TopicSpec<?, ?>> topics =
                        new ArrayList<>(catalog.shared());
                topics.addAll(catalog.forRun(BASE_RUN));
                new TopicAdmin(admin, catalog).ensure(topics);
            }
            final long started = System.nanoTime();
            pretraining(connection);
            base(connection);
            final Map<Integer, Map<Arm, String>> runs = new TreeMap<>();
            int trained = 0;
            final int total = settings.seeds() * Arm.values().length;
            int step = 0;
            for (int seed = 1; seed <= settings.seeds(); seed++) {
                slice(connection, seed);
                for (final Arm arm : Arm.values()) {
                    step++;
                    final String marker = "arm-" + arm.id() + "-s" + seed;
                    if (done(marker)) {
                        say(
                                "[%d/%d] %s seed %d: done before (run %s)",
                                step, total, arm.id(), seed, doneValue(marker));
                    } else {
                        say(
                                "[%d/%d] %s seed %d: training (%.0f s into the bench) ...",
                                step, total, arm.id(), seed, (System.nanoTime() - started) / 1e9);
                        final String run = train(connection, arm, seed);
                        markDone(marker, run);
                        trained++;
                    }
                    runs.computeIfAbsent(seed, k -> new EnumMap<>(Arm.class))
                            .put(arm, doneValue(marker));
                }
            }
            final Map<String, Long> matched = matchedUpdates(connection, runs);
            final List<String> trainedRuns = new ArrayList<>();
            runs.values().forEach(byArm -> trainedRuns.addAll(byArm.values()));
            say(
                    "Evaluating the base, %d trained models and %d versions at RWML's number of"
                            + " updates ...",
                    trainedRuns.size(), matched.size());
            final EvalReport report = evaluate(connection, trainedRuns, matched);
            final Path reportDir = settings.dir().resolve("report");
            ReportWriter.writeFiles(report, reportDir);
            Files.writeString(
                    reportDir.resolve("bench.md"),
                    BenchSummary.markdown(report, settings.seeds(), matchedLabels(matched)),
                    StandardCharsets.UTF_8);
            say(
                    "Bench finished in %.0f s: %s (and bench.md, report.md)",
                    (System.nanoTime() - started) / 1e9, reportDir.resolve("report.html"));
            return new Result(report, reportDir, trained);
        }
    }

    private void pretraining(final Connection connection) throws IOException {
        if (done("pretraining")) {
            say("Pretraining slice: done before (%s)", doneValue("pretraining"));
            return;
        }
        final var result =
                new TransitionProducer(
                                ProducerConfig.builder(
                                                EnvKind.ALFWORLD, KafkaSettings.of(connection))
                                        .agents(1)
                                        .episodes(settings.demo().pretrainEpisodes())
                                        .seed(DemoSettings.SEED)
                                        .policy(PolicyKind.EPSILON)
                                        .epsilon(settings.demo().epsilon())
                                        .baseTime(Instant.now())
                                        .build(),
                                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                                ProgressListener.NONE)
                        .run();
        say(
                "Pretraining slice: %d transitions of %d ALFWorld episodes",
                result.transitions(), result.episodes());
        markDone("pretraining", result.transitions() + " transitions");
    }

    private void base(final Connection connection) throws IOException {
        if (done("base")) {
            say("Base model: done before (version 0 of run %s)", BASE_RUN);
            return;
        }
        if (!manifests(connection, BASE_RUN).isEmpty()) {
            throw new IllegalStateException(
                    "run "
                            + BASE_RUN
                            + " has a version but the bench did not finish making it; start"
                            + " again in an empty --dir");
        }
        say(
                "Training the base world model (%s, %d SFT steps) on the pretraining slice ...",
                settings.demo().modelPreset(), settings.demo().initSteps());
        final BaseModelInit.Result init =
                BaseModelInit.run(
                        BaseModelInit.Config.of(
                                BASE_RUN,
                                connection,
                                settings.demo().modelPreset(),
                                settings.demo().initSteps(),
                                1_000_000,
                                Set.of(EnvKind.ALFWORLD.id()),
                                DemoSettings.SEED),
                        new BaseModelInit.Listener() {
                            @Override
                            public void step(
                                    final dev.rwml.worldmodel.train.StepMetrics m,
                                    final int total) {
                                if (m.step() % Math.max(1, total / 5) == 0 || m.step() == total) {
                                    say("  SFT step %d/%d loss %.3f", m.step(), total, m.loss());
                                }
                            }
                        });
        say("Base model published: %d examples", init.examples());
        markDone("base", BASE_RUN);
    }

    /** Produces seed {@code seed}'s RWML data slice once and records its offsets. */
    private void slice(final Connection connection, final int seed) throws IOException {
        final String marker = "slice-s" + seed;
        if (done(marker)) {
            return;
        }
        final Map<Integer, Long> from = endOffsets(connection);
        final var result =
                new TransitionProducer(
                                ProducerConfig.builder(
                                                EnvKind.ALFWORLD, KafkaSettings.of(connection))
                                        .agents(1)
                                        .episodes(settings.sliceEpisodes())
                                        .seed(DemoSettings.SEED + seed)
                                        .policy(PolicyKind.EPSILON)
                                        .epsilon(settings.demo().epsilon())
                                        .baseTime(Instant.now())
                                        .build(),
                                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                                ProgressListener.NONE)
                        .run();
        final Map<Integer, Long> until = endOffsets(connection);
        state.setProperty(marker + ".from", offsets(from));
        state.setProperty(marker + ".until", offsets(until));
        saveState();
        say(
                "RWML data slice of seed %d: %d transitions of %d episodes, offsets %s until %s",
                seed, result.transitions(), result.episodes(), offsets(from), offsets(until));
        markDone(marker, offsets(until));
    }

    /** Replays seed {@code seed}'s slice into a fresh run from a copy of the base. */
    private String train(final Connection connection, final Arm arm, final int seed)
            throws InterruptedException {
        String run = "bench-" + arm.id() + "-s" + seed;
        for (int attempt = 2; !manifests(connection, run).isEmpty(); attempt++) {
            // An earlier attempt was interrupted: its run holds a partial lineage.
            run = "bench-" + arm.id() + "-s" + seed + "-r" + attempt;
        }
        final DemoSettings d = settings.demo();
        final Map<String, String> prediction = new LinkedHashMap<>();
        prediction.put(PredictionConfig.GROUP_SIZE, Integer.toString(d.groupSize()));
        prediction.put("sampling.max.new.tokens", Integer.toString(d.maxNewTokens()));
        prediction.put(PredictionConfig.BATCH_SIZE, Integer.toString(d.predictionBatch()));
        prediction.put("select.envs", EnvKind.ALFWORLD.id());
        // the arms of one seed sample alike; other seeds sample independently
        prediction.put("sampling.seed", Integer.toString(seed));
        final Map<String, String> reward = new LinkedHashMap<>();
        reward.put("subsample.seed", Integer.toString(seed));
        if (!d.rewardSpec().isBlank()) {
            reward.put("reward.spec", d.rewardSpec());
        }
        final Map<String, String> trainer = new LinkedHashMap<>();
        trainer.put("groups.per.step", Integer.toString(d.groupsPerStep()));
        trainer.put(TrainerConfig.PUBLISH_EVERY_STEPS, Integer.toString(d.publishEverySteps()));
        trainer.put("learning.rate", Double.toString(d.learningRate()));
        trainer.put("keep.versions", "100000");
        arm.settings.forEach(
                (k, v) -> {
                    final int dot = k.indexOf('.');
                    final String stage = k.substring(0, dot);
                    final String key = k.substring(dot + 1);
                    (stage.equals("trainer")
                                    ? trainer
                                    : stage.equals("reward") ? reward : prediction)
                            .put(key, v);
                });
        final String marker = "slice-s" + seed;
        new ReplayRun(connection, out)
                .run(
                        new ReplayRun.Settings(
                                run,
                                Optional.of(BASE_RUN),
                                SliceBound.parse(state.getProperty(marker + ".from")),
                                SliceBound.parse(state.getProperty(marker + ".until")),
                                settings.epochs(),
                                settings.dir().resolve("state").resolve(run),
                                prediction,
                                reward,
                                trainer));
        return run;
    }

    /**
     * Per seed and for each other arm, the version whose optimizer steps (summed over its versions
     * after 0) first reach those of the RWML arm's last version: the arms compared after the same
     * number of updates, as the paper compares changed parameters. WM-SFT trains on every group and
     * RWML without subsampling keeps the easy ones, so on one slice both take more steps than RWML.
     */
    private Map<String, Long> matchedUpdates(
            final Connection connection, final Map<Integer, Map<Arm, String>> runs) {
        final Map<String, Long> matched = new LinkedHashMap<>();
        runs.forEach(
                (seed, byArm) -> {
                    final String rwml = byArm.get(Arm.RWML);
                    if (rwml == null) {
                        return;
                    }
                    long rwmlSteps = 0;
                    for (final ModelVersion m : manifests(connection, rwml)) {
                        rwmlSteps += stepsOf(m);
                    }
                    for (final Arm arm : List.of(Arm.WM_SFT, Arm.RWML_NO_SUBSAMPLING)) {
                        final String run = byArm.get(arm);
                        if (run == null) {
                            continue;
                        }
                        final List<ModelVersion> versions = manifests(connection, run);
                        long steps = 0;
                        long version = -1;
                        for (final ModelVersion m : versions) {
                            steps += stepsOf(m);
                            version = m.getVersion();
                            if (steps >= rwmlSteps) {
                                break;
                            }
                        }
                        final boolean last =
                                version == versions.get(versions.size() - 1).getVersion();
                        say(
                                "Seed %d: %s version %d has %d optimizer steps, RWML's last"
                                        + " version %d%s",
                                seed,
                                arm.id(),
                                version,
                                steps,
                                rwmlSteps,
                                last ? " (its last version: nothing more to compare)" : "");
                        if (!last) {
                            matched.put(run, version);
                        }
                    }
                });
        return matched;
    }

    /** A version's optimizer steps; version 0 is the copied base, its counters the base's SFT. */
    private static long stepsOf(final ModelVersion m) {
        return m.getVersion() == 0 ? 0 : m.getCounters().getSteps();
    }

    private static Set<String> matchedLabels(final Map<String, Long> matched) {
        final Set<String> labels = new HashSet<>();
        matched.forEach((run, version) -> labels.add(run + "@" + version));
        return labels;
    }

    private EvalReport evaluate(
            final Connection connection, final List<String> runs, final Map<String, Long> matched) {
        final EvalSettings eval =
                new EvalSettings(
                        settings.evalSamples(),
                        DemoSettings.SEED,
                        settings.bootstrap(),
                        1f,
                        1f,
                        settings.demo().maxNewTokens());
        final Evaluation.Progress progress = this::say;
        final List<HeldOutSet> sets = new ArrayList<>();
        for (final String split : List.of("alfworld/valid_seen", "alfworld/valid_unseen")) {
            sets.add(
                    HeldOutSet.generate(
                            split,
                            settings.evalTransitions(),
                            DemoSettings.SEED,
                            settings.demo().epsilon()));
        }
        final Map<String, List<Transition>> texts = new LinkedHashMap<>();
        final int driftTexts = Math.max(8, settings.evalTransitions() / 2);
        texts.put(
                "alfworld",
                HeldOutSet.generate(
                                "alfworld/valid_unseen",
                                driftTexts,
                                DemoSettings.SEED,
                                settings.demo().epsilon())
                        .transitions());
        final AgentEvaluation agent =
                new AgentEvaluation(
                        List.of("alfworld/valid_unseen"),
                        new GuidedAgent.Settings(settings.agentEpisodes(), 3, 0.2, 0.3),
                        DemoSettings.SEED,
                        new Bootstrap(settings.bootstrap(), DemoSettings.SEED),
                        1);
        final RewardSpecTable specs =
                settings.demo().rewardSpec().isBlank()
                        ? RewardSpecTable.paperDefaults()
                        : RewardSpecTable.parse(settings.demo().rewardSpec());
        final SimilarityScorer scorer =
                new SimilarityScorer(EmbeddingSettings.defaults().create(System.getenv()));
        try (ModelCatalog catalog = new ModelCatalog(connection)) {
            catalog.addRun(BASE_RUN, List.of("0"));
            for (final String run : runs) {
                catalog.addRun(
                        run,
                        matched.containsKey(run)
                                ? List.of(Long.toString(matched.get(run)), "latest")
                                : List.of("latest"));
            }
            return new Evaluation(sets, texts, run -> specs, scorer, eval, progress, agent)
                    .run(catalog);
        }
    }

    private List<ModelVersion> manifests(final Connection connection, final String run) {
        try (ModelChannel channel = ModelChannel.of(connection, run);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), READ_TIMEOUT)) {
            return reader.manifests();
        }
    }

    private static Map<Integer, Long> endOffsets(final Connection connection) {
        try (Admin admin = connection.admin()) {
            final var partitions =
                    admin.describeTopics(List.of(TopicCatalog.TRANSITIONS))
                            .allTopicNames()
                            .get()
                            .get(TopicCatalog.TRANSITIONS)
                            .partitions();
            final Map<TopicPartition, OffsetSpec> ask = new LinkedHashMap<>();
            partitions.forEach(
                    p ->
                            ask.put(
                                    new TopicPartition(TopicCatalog.TRANSITIONS, p.partition()),
                                    OffsetSpec.latest()));
            final Map<Integer, Long> out = new TreeMap<>();
            admin.listOffsets(ask)
                    .all()
                    .get()
                    .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the end offsets", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(
                    "cannot read the end offsets of " + TopicCatalog.TRANSITIONS, e.getCause());
        }
    }

    private static String offsets(final Map<Integer, Long> offsets) {
        final StringBuilder b = new StringBuilder();
        offsets.forEach(
                (p, o) -> b.append(b.length() == 0 ? "" : ",").append(p).append(':').append(o));
        return b.toString();
    }

    private void loadState() throws IOException {
        final Path file = settings.dir().resolve("bench.properties");
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                state.load(r);
            }
            for (final Map.Entry<String, String> e : settings.identity().entrySet()) {
                final String recorded = state.getProperty("setting." + e.getKey());
                if (recorded != null && !recorded.equals(e.getValue())) {
                    throw new IllegalArgumentException(
                            "the bench in "
                                    + settings.dir()
                                    + " was started with "
                                    + e.getKey()
                                    + "="
                                    + recorded
                                    + ", not "
                                    + e.getValue()
                                    + "; resume it with the same options or use another --dir");
                }
            }
        }
        settings.identity().forEach((k, v) -> state.setProperty("setting." + k, v));
        saveState();
    }

    private void saveState() {
        try (Writer w =
                Files.newBufferedWriter(
                        settings.dir().resolve("bench.properties"), StandardCharsets.UTF_8)) {
            state.store(w, "rwml bench: settings and the offsets of its data slices");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write bench.properties", e);
        }
    }

    private boolean done(final String step) {
        return Files.exists(settings.dir().resolve("done").resolve(step));
    }

    private String doneValue(final String step) {
        try {
            return Files.readString(settings.dir().resolve("done").resolve(step)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void markDone(final String step, final String value) throws IOException {
        Files.writeString(settings.dir().resolve("done").resolve(step), value + "\n");
    }

    private void say(final String format, final Object... args) {
        Progress.say(out, format, args);
    }
}
