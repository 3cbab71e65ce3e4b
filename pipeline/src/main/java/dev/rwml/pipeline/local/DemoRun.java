package dev.rwml.pipeline.local;

import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.channel.init.HfModelInit;
import dev.rwml.env.EnvKind;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProducerResult;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.EvalSettings;
import dev.rwml.evaluation.Evaluation;
import dev.rwml.evaluation.HeldOutSet;
import dev.rwml.evaluation.ModelCatalog;
import dev.rwml.evaluation.VersionScore;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.embedded.Directories;
import dev.rwml.ops.embedded.EmbeddedCluster;
import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.pipeline.watch.SftBar;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.reward.RewardConfig;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.trainer.PublishListener;
import dev.rwml.trainer.TrainerConfig;
import dev.rwml.worldmodel.hf.LoraConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline on the embedded default, start to report: a fresh broker and registry under
 * {@code <dir>/cluster}, a pretraining slice of ALFWorld transitions, the base model (version 0),
 * the prediction, reward and trainer stages of run {@value #RUN} in this JVM, RWML data from a few
 * epsilon-expert agents, live progress, and after the budget what the run's report shows.
 *
 * <p>The prediction stage starts at the first transition produced after the pretraining slice (a
 * timestamp start taken once init returned), so no transition the base model was trained on is
 * predicted, rewarded and trained on again. {@link #requestStop} (Ctrl-C) ends the run early; the
 * stages and the cluster are closed either way.
 */
public final class DemoRun {

    /** The run the demo trains. */
    public static final String RUN = "demo";

    /** The held-out set the demo scores its versions on, as {@code rwml eval --split} names it. */
    public static final String HELD_OUT_SET = "alfworld/valid_seen";

    /** Bootstrap resamples of the held-out pass rate's interval. */
    private static final int HELD_OUT_BOOTSTRAP = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(DemoRun.class);
    private static final Duration TICK = Duration.ofSeconds(1);

    private final Path dir;
    private final DemoSettings settings;
    private final Optional<HfBase> hf;
    private final RunOutput output;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final AtomicReference<String> stopReason = new AtomicReference<>();

    /**
     * What a demo produced: what its report shows, unless it stopped before the stages started.
     *
     * @param summary the report's lines at the top (settings, totals, timings)
     * @param last the run as last seen, null when stopped before the stages started
     * @param heldOut the held-out scores of the evaluated versions
     * @param heldOutNote why held-out scores are missing or partial, empty otherwise
     * @param stopReason why the stages were stopped
     * @param registryPid the registry child process the demo started (stopped since)
     */
    public record Result(
            List<String> summary,
            RunMonitor.Snapshot last,
            List<VersionScore> heldOut,
            Optional<String> heldOutNote,
            String stopReason,
            long registryPid) {

        /** Whether the stages ran, so there is a report to write. */
        public boolean hasReport() {
            return last != null;
        }
    }

    /**
     * @param dir the demo's directory ({@code ./.rwml}): cluster data and stream state
     * @param settings what to run
     * @param output where progress and live facts go
     */
    public DemoRun(final Path dir, final DemoSettings settings, final RunOutput output) {
        this(dir, settings, Optional.empty(), output);
    }

    /**
     * A demo whose world model is a Hugging Face checkpoint ({@code rwml demo --model hf:DIR}): no
     * pretraining slice, version 0 is the checkpoint (with LoRA when {@code hf} says so).
     */
    public DemoRun(
            final Path dir,
            final DemoSettings settings,
            final Optional<HfBase> hf,
            final RunOutput output) {
        this.dir = dir.toAbsolutePath();
        this.settings = settings;
        this.hf = hf;
        this.output = output;
    }

    /**
     * A Hugging Face checkpoint as the demo's version 0.
     *
     * @param checkpoint the checkpoint directory
     * @param lora the adapters trained on it, or empty to train every weight
     */
    public record HfBase(Path checkpoint, Optional<LoraConfig> lora) {}

    /** Version 0 and the report's lines about it. */
    private record Base(ModelVersion manifest, List<String> summary) {}

    /** Completions of a pretrained model with the answer format get this many tokens at least. */
    private static final int HF_MIN_NEW_TOKENS = 160;

    /**
     * A pretrained model's prompts stay within this many tokens (its context may be far longer).
     */
    private static final int HF_MAX_SEQUENCE = 1024;

    /** Asks a running demo to stop its stages now and finish (from any thread). */
    public void requestStop(final String reason) {
        stopReason.compareAndSet(null, reason);
        stopRequested.countDown();
    }

    /** Runs the demo; returns what its report shows once everything is closed. */
    public Result run() throws IOException, InterruptedException {
        clean(dir.resolve("cluster"));
        clean(dir.resolve("state"));
        say("Starting the embedded Kafka broker and schema registry under %s ...", dir);
        try (EmbeddedCluster cluster = EmbeddedCluster.start(dir.resolve("cluster"))) {
            say(
                    "Kafka %s, schema registry %s",
                    cluster.bootstrapServers(), cluster.schemaRegistryUrl());
            return run(cluster);
        }
    }

    private Result run(final EmbeddedCluster cluster) throws IOException, InterruptedException {
        final Connection connection =
                Connection.of(cluster.bootstrapServers(), cluster.schemaRegistryUrl());
        createTopics(connection);
        final KafkaSettings kafka = KafkaSettings.of(connection);
        final Base base =
                hf.isPresent() ? hfBase(connection, hf.get()) : smallBase(connection, kafka);
        if (base == null) {
            return interruptedEarly(cluster);
        }
        final Instant rwmlStart = Instant.now();
        final int maxContext =
                Integer.parseInt(
                        base.manifest().getModelConfig().getOrDefault("maxContext", "256"));
        final PredictionConfig prediction = predictionConfig(connection, rwmlStart, maxContext);
        final RewardConfig reward = rewardConfig(connection);
        final TrainerConfig trainer = trainerConfig(connection);
        final MeterRegistry meters = new SimpleMeterRegistry();
        RunMonitor.Snapshot last;
        final TransitionProducer producer =
                new TransitionProducer(
                        ProducerConfig.builder(EnvKind.ALFWORLD, kafka)
                                .agents(settings.agents())
                                .episodes(settings.rwmlEpisodes())
                                .seed(DemoSettings.SEED + 1)
                                .policy(PolicyKind.EPSILON)
                                .epsilon(settings.epsilon())
                                .rate(settings.rate())
                                .baseTime(rwmlStart)
                                .build(),
                        meters,
                        ProgressListener.NONE);
        final Thread producing = new Thread(producer::run, "rwml-demo-producer");
        say(
                "Starting the prediction, reward and trainer stages of run '%s' and %d agents",
                RUN, settings.agents());
        try (PipelineStages stages =
                        PipelineStages.start(
                                prediction, reward, trainer, meters, PublishListener.NONE);
                RunMonitor monitor = new RunMonitor(RUN, connection, meters);
                RunOutput.Live view = output.live()) {
            producing.start();
            try {
                last = watch(monitor, view, stages);
            } finally {
                producer.stop();
                producing.join(Duration.ofSeconds(60).toMillis());
            }
            // The last facts stay on screen above the lines that follow.
            view.close();
            say("Stopping the stages (%s) ...", stopReason.get());
        }
        final List<VersionScore> heldOut = new ArrayList<>();
        final Optional<String> note = evaluate(connection, reward, prediction, last, heldOut);
        return new Result(
                summary(base, last, reward),
                last,
                heldOut,
                note,
                stopReason.get(),
                cluster.registryPid());
    }

    private RunMonitor.Snapshot watch(
            final RunMonitor monitor, final RunOutput.Live view, final PipelineStages stages)
            throws InterruptedException {
        while (true) {
            final RunMonitor.Snapshot s = monitor.poll(TICK);
            view.show(facts(s));
            if (stopped()) {
                return s;
            }
            final String failure = stages.failure();
            if (failure != null) {
                requestStop(failure);
            } else if (s.elapsed().compareTo(settings.budget()) >= 0) {
                requestStop("time budget of " + settings.budget().toSeconds() + " s reached");
            } else if (settings.versionBudget() > 0
                    && s.versionsAfterBase() >= settings.versionBudget()) {
                requestStop(settings.versionBudget() + " versions published");
            }
        }
    }

    /** The panel's facts: the run's, the time left of the budget, and the versions' bar. */
    private LiveFacts facts(final RunMonitor.Snapshot s) {
        final LiveFacts facts =
                s.facts(
                        "rwml demo",
                        Optional.of(settings.budget().minus(s.elapsed())),
                        "Ctrl-C stops and writes the report");
        return settings.versionBudget() == 0
                ? facts
                : facts.withBar(
                        new LiveFacts.Bar(
                                "versions",
                                Math.min(s.versionsAfterBase(), settings.versionBudget()),
                                settings.versionBudget()));
    }

    private boolean stopped() {
        return stopRequested.getCount() == 0;
    }

    private Result interruptedEarly(final EmbeddedCluster cluster) {
        say("Stopped before the stages started (%s); no report written", stopReason.get());
        return new Result(
                List.of(),
                null,
                List.of(),
                Optional.empty(),
                stopReason.get(),
                cluster.registryPid());
    }

    private Optional<String> evaluate(
            final Connection connection,
            final RewardConfig reward,
            final PredictionConfig prediction,
            final RunMonitor.Snapshot last,
            final List<VersionScore> scores) {
        if (stopReason.get() != null && stopReason.get().startsWith("interrupted")) {
            return Optional.of("Held-out evaluation skipped: the demo was interrupted.");
        }
        final List<Long> chosen = choose(new ArrayList<>(last.versions().keySet()));
        say(
                "Evaluating versions %s on %d held-out %s transitions ...",
                chosen, settings.heldOutTransitions(), HELD_OUT_SET);
        try {
            final CachingEmbedder embedder = reward.embedding().create(System.getenv());
            final Evaluation evaluation =
                    new Evaluation(
                            List.of(
                                    HeldOutSet.generate(
                                            HELD_OUT_SET,
                                            settings.heldOutTransitions(),
                                            DemoSettings.SEED,
                                            settings.epsilon())),
                            Map.of(),
                            run -> reward.rewardSpecs(),
                            new SimilarityScorer(embedder),
                            new EvalSettings(
                                    settings.heldOutSamples(),
                                    DemoSettings.SEED,
                                    HELD_OUT_BOOTSTRAP,
                                    prediction.temperature(),
                                    prediction.topP(),
                                    prediction.maxNewTokens(),
                                    false),
                            Evaluation.Progress.NONE);
            for (final long version : chosen) {
                if (stopped() && stopReason.get().startsWith("interrupted")) {
                    return Optional.of(
                            "Held-out evaluation interrupted after "
                                    + scores.size()
                                    + " versions.");
                }
                try (ModelCatalog catalog = new ModelCatalog(connection)) {
                    catalog.addRun(RUN, List.of(Long.toString(version)));
                    final EvalReport report = evaluation.run(catalog);
                    final VersionScore score = VersionScore.of(report, report.models().get(0));
                    scores.add(score);
                    say(
                            "  version %d: held-out pass rate %.3f, mean similarity %.3f",
                            version, score.passRate(), score.meanSimilarity());
                }
            }
            return Optional.empty();
        } catch (Exception e) {
            LOG.warn("Held-out evaluation failed", e);
            return Optional.of("Held-out evaluation failed: " + e.getMessage());
        }
    }

    /** Version 0, the last version and evenly spaced ones between, at most the configured count. */
    List<Long> choose(final List<Long> versions) {
        final int n = Math.max(2, settings.evaluatedVersions());
        if (versions.size() <= n) {
            return versions;
        }
        final List<Long> chosen = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final long v =
                    versions.get((int) Math.round(i * (versions.size() - 1) / (double) (n - 1)));
            if (!chosen.contains(v)) {
                chosen.add(v);
            }
        }
        return chosen;
    }

    private List<String> summary(
            final Base base, final RunMonitor.Snapshot last, final RewardConfig reward) {
        final List<String> lines = new ArrayList<>();
        lines.addAll(base.summary());
        lines.add(
                String.format(
                        Locale.ROOT,
                        "Stages ran %d s (%s); %d agents, epsilon %.2f, G = %d, %d groups per step",
                        last.elapsed().toSeconds(),
                        stopReason.get(),
                        settings.agents(),
                        settings.epsilon(),
                        settings.groupSize(),
                        settings.groupsPerStep()));
        lines.add(
                String.format(
                        Locale.ROOT,
                        "%d versions published after the base; %d groups rewarded; %d dead letters",
                        last.versionsAfterBase(),
                        last.rewardedGroups(),
                        last.deadLetters()));
        final long easy = last.passRates().values().stream().mapToLong(p -> p.easy()).sum();
        lines.add(
                String.format(
                        Locale.ROOT,
                        "Too-easy filter: %d of %d rewarded groups easy (%.1f%%; a sample above the"
                                + " data-stage threshold), kept with probability %.2f",
                        easy,
                        last.rewardedGroups(),
                        last.rewardedGroups() == 0 ? 0.0 : 100.0 * easy / last.rewardedGroups(),
                        reward.subsample().easyKeepProbability()));
        final List<RunMonitor.ThroughputSample> t = last.throughput();
        if (!t.isEmpty()) {
            final RunMonitor.ThroughputSample end = t.get(t.size() - 1);
            final double s = Math.max(1e-9, end.seconds());
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "Mean groups/s: prediction %.2f, reward %.2f, trainer %.2f",
                            end.predicted() / s,
                            end.rewarded() / s,
                            end.trained() / s));
        }
        return lines;
    }

    /**
     * The small model's version 0: a pretraining slice produced and the base trained on it by SFT;
     * null when the demo was stopped meanwhile.
     */
    private Base smallBase(final Connection connection, final KafkaSettings kafka) {
        final ProducerResult pretraining =
                new TransitionProducer(
                                ProducerConfig.builder(EnvKind.ALFWORLD, kafka)
                                        .agents(2)
                                        .episodes(settings.pretrainEpisodes())
                                        .seed(DemoSettings.SEED)
                                        .policy(PolicyKind.EPSILON)
                                        .epsilon(settings.epsilon())
                                        .baseTime(Instant.now())
                                        .build(),
                                new SimpleMeterRegistry(),
                                ProgressListener.NONE)
                        .run();
        say(
                "Pretraining slice: %d transitions of %d ALFWorld episodes",
                pretraining.transitions(), pretraining.episodes());
        if (stopped()) {
            return null;
        }
        say(
                "Training the base world model (%s, %d SFT steps) on the slice ...",
                settings.modelPreset(), settings.initSteps());
        final BaseModelInit.Result init;
        try (RunOutput.Live view = output.live()) {
            init =
                    BaseModelInit.run(
                            BaseModelInit.Config.of(
                                    RUN,
                                    connection,
                                    settings.modelPreset(),
                                    settings.initSteps(),
                                    1_000_000,
                                    Set.of(EnvKind.ALFWORLD.id()),
                                    DemoSettings.SEED),
                            new SftBar(view, "rwml demo: base model"));
        }
        say(
                "Version 0 published: %d examples, SFT loss %.3f -> %.3f, lineage %s",
                init.examples(),
                init.history().get(0).loss(),
                init.history().get(init.history().size() - 1).loss(),
                init.nextOffsets());
        return new Base(
                init.manifest(),
                List.of(
                        String.format(
                                Locale.ROOT,
                                "Model %s; base model: %d SFT steps on %d pretraining transitions",
                                settings.modelPreset(),
                                settings.initSteps(),
                                pretraining.transitions()),
                        "Base model lineage (the pretraining slice of "
                                + dev.rwml.schemas.topics.TopicCatalog.defaults()
                                        .transitions()
                                        .name()
                                + "): "
                                + init.lineage().stream()
                                        .map(
                                                r ->
                                                        String.format(
                                                                Locale.ROOT,
                                                                "partition %d offsets [%d, %d)",
                                                                r.getPartition(),
                                                                r.getFromOffset(),
                                                                r.getUntilOffset()))
                                        .collect(java.util.stream.Collectors.joining("; "))));
    }

    /** A Hugging Face checkpoint published as version 0, as {@code rwml model init --from-hf}. */
    private Base hfBase(final Connection connection, final HfBase base) {
        say(
                "Publishing %s as version 0%s ...",
                base.checkpoint(),
                base.lora().map(l -> " for LoRA " + l).orElse(" (every weight trained)"));
        final ModelVersion manifest =
                HfModelInit.run(
                        new HfModelInit.Config(
                                RUN,
                                connection,
                                base.checkpoint(),
                                base.lora(),
                                Optional.empty(),
                                Duration.ofSeconds(60)),
                        BaseModelInit.Listener.NONE);
        say(
                "Version 0 published: %s, %s parameters, context %s",
                manifest.getModelConfig().get("architecture"),
                manifest.getModelConfig().get("parameters"),
                manifest.getModelConfig().get("maxContext"));
        return new Base(
                manifest,
                List.of(
                        String.format(
                                Locale.ROOT,
                                "Model %s from %s (%s parameters), %s; no pretraining slice",
                                manifest.getModelConfig().get("architecture"),
                                base.checkpoint(),
                                manifest.getModelConfig().get("parameters"),
                                base.lora().map(l -> "LoRA " + l).orElse("every weight trained"))));
    }

    private PredictionConfig predictionConfig(
            final Connection connection, final Instant start, final int maxContext) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("run", RUN);
        m.putAll(connection.asMap());
        m.put(StartPosition.SETTING, StartPosition.at(start).toString());
        m.put(PredictionConfig.GROUP_SIZE, Integer.toString(settings.groupSize()));
        final int newTokens =
                hf.isPresent()
                        ? Math.max(settings.maxNewTokens(), HF_MIN_NEW_TOKENS)
                        : settings.maxNewTokens();
        final int sequence = hf.isPresent() ? Math.min(maxContext, HF_MAX_SEQUENCE) : maxContext;
        m.put("sampling.max.new.tokens", Integer.toString(newTokens));
        m.put(PredictionConfig.BATCH_SIZE, Integer.toString(settings.predictionBatch()));
        m.put("batch.max.wait", "PT1S");
        m.put("prompt.max.tokens", Integer.toString(sequence - newTokens));
        m.put("select.envs", EnvKind.ALFWORLD.id());
        m.put(StreamsLifecycle.STATE_DIR, dir.resolve("state").resolve("prediction").toString());
        PipelineStages.streamsTuning().forEach((k, v) -> m.put("streams." + k, v));
        return PredictionConfig.fromMap(m);
    }

    private RewardConfig rewardConfig(final Connection connection) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("run", RUN);
        m.putAll(connection.asMap());
        m.put(StreamsLifecycle.STATE_DIR, dir.resolve("state").resolve("reward").toString());
        if (!settings.rewardSpec().isBlank()) {
            m.put("reward.spec", settings.rewardSpec());
        }
        PipelineStages.streamsTuning().forEach((k, v) -> m.put("streams." + k, v));
        return RewardConfig.fromMap(m);
    }

    private TrainerConfig trainerConfig(final Connection connection) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.putAll(connection.asMap());
        m.put("groups.per.step", Integer.toString(settings.groupsPerStep()));
        m.put(TrainerConfig.PUBLISH_EVERY_STEPS, Integer.toString(settings.publishEverySteps()));
        m.put("publish.interval", settings.publishInterval().toString());
        m.put("learning.rate", Double.toString(settings.learningRate()));
        // Every version stays readable so the report can evaluate any of them.
        m.put("keep.versions", "100000");
        return TrainerConfig.defaults(RUN).with(m);
    }

    private static void createTopics(final Connection connection) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final List<TopicSpec<?, ?>> topics = new ArrayList<>(catalog.shared());
        topics.addAll(catalog.forRun(RUN));
        try (Admin admin = connection.admin()) {
            new TopicAdmin(admin, catalog).ensure(topics);
        }
    }

    private static void clean(final Path path) {
        try {
            Directories.deleteRecursively(path);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot delete "
                            + path
                            + " from an earlier demo: stop any rwml process using it, or delete it"
                            + " by hand",
                    e);
        }
    }

    private void say(final String format, final Object... args) {
        output.say(format, args);
    }
}
