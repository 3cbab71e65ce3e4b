package dev.rwml.pipeline.replay;

import dev.rwml.channel.ChunkObserver;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.pipeline.local.PipelineStages;
import dev.rwml.pipeline.local.RunMonitor;
import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.prediction.PredictionMetrics;
import dev.rwml.reward.RewardConfig;
import dev.rwml.reward.RewardMetrics;
import dev.rwml.runtime.Meters;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StopAt;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.trainer.PublishListener;
import dev.rwml.trainer.TrainerConfig;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

/**
 * Trains a new run on a slice of {@code rwml.transitions}: the run's prediction stage reads the
 * slice (its group's offsets committed to the slice start, {@code stop.at} = the slice end) N
 * times, the reward stage joins with a window wide enough for the slice's old event times, and the
 * trainer is told to finish once every group was rewarded, so it publishes a last version whose
 * lineage reaches the end of {@code rwml.<run>.rewards}.
 */
public final class ReplayRun {

    /** How replay differs from the live pipeline; printed by the command and in its help. */
    public static final List<String> DIFFERENCES =
            List.of(
                    "reads a fixed slice [from, until) of rwml.transitions, not the live tail:"
                            + " transitions after the slice are skipped (prediction stop.at)",
                    "predicts the slice once per epoch (the prediction group is moved back to the"
                            + " slice start between epochs); live predicts each transition once",
                    "the reward join window covers the slice's old event times, so they are not"
                            + " dead-lettered as late",
                    "ends by itself: the trainer trains its partial last batch and publishes a"
                            + " final version; a live trainer runs until stopped",
                    "starts from a copy of another run's version 0 (--from-run) or the run's own"
                            + " base, so runs over the same slice are comparable");

    private static final Duration TICK = Duration.ofMillis(500);

    private final Connection connection;
    private final RunOutput output;
    private final List<LiveFacts.Bar> outer;

    /**
     * What to replay.
     *
     * @param run the new run
     * @param fromRun the run whose version 0 is copied as the new run's base, if any
     * @param from the slice start
     * @param until the slice end (exclusive)
     * @param epochs how many times the slice is predicted
     * @param stateDir where the streams stages keep their state
     * @param prediction prediction-stage settings (keys of {@code rwml predict})
     * @param reward reward-stage settings (keys of {@code rwml reward})
     * @param trainer trainer settings (keys of {@code rwml train})
     * @param filterRun the run whose model judges the slice in an offline filter pass before
     *     training (the paper's filter), if any; the run trains on what it keeps
     * @param filter filter-stage settings (keys of {@code rwml filter}) for that pass
     */
    public record Settings(
            String run,
            Optional<String> fromRun,
            SliceBound from,
            SliceBound until,
            int epochs,
            Path stateDir,
            Map<String, String> prediction,
            Map<String, String> reward,
            Map<String, String> trainer,
            Optional<String> filterRun,
            Map<String, String> filter) {

        /** Validates the epochs and copies the maps. */
        public Settings {
            if (epochs < 1) {
                throw new IllegalArgumentException("--epochs must be at least 1, got " + epochs);
            }
            prediction = Map.copyOf(prediction);
            reward = Map.copyOf(reward);
            trainer = Map.copyOf(trainer);
            filter = Map.copyOf(filter);
        }
    }

    /**
     * What a replay did.
     *
     * @param slice the slice replayed
     * @param predictions prediction groups written (all epochs)
     * @param rewards rewarded groups written
     * @param versions every version of the new run, base first
     * @param filter what the offline filter pass decided, when one ran
     */
    public record Result(
            TransitionSlice slice,
            long predictions,
            long rewards,
            List<ModelVersion> versions,
            Optional<FilterPass.Result> filter) {}

    /**
     * A replay on the connection's cluster and registry (every client and stage with its security
     * settings), reporting progress and live facts to {@code output}.
     */
    public ReplayRun(final Connection connection, final RunOutput output) {
        this.connection = connection;
        this.output = output;
        this.outer = List.of();
    }

    private ReplayRun(final ReplayRun r, final List<LiveFacts.Bar> outer) {
        this.connection = r.connection;
        this.output = r.output;
        this.outer = List.copyOf(outer);
    }

    /** A replay whose panel shows {@code bar} too: the larger work it is part of. */
    public ReplayRun within(final LiveFacts.Bar bar) {
        return new ReplayRun(this, List.of(bar));
    }

    /**
     * Runs the replay until the slice was predicted, rewarded and trained on {@code epochs} times.
     */
    public Result run(final Settings s) throws InterruptedException {
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = connection.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(s.run()));
            final ModelVersion base = prepareBase(s);
            final TransitionSlice slice =
                    TransitionSlice.resolve(admin, connection, s.from(), s.until());
            if (slice.transitions() == 0) {
                throw new IllegalArgumentException(
                        "the slice from "
                                + s.from()
                                + " until "
                                + s.until()
                                + " holds no transitions; choose other bounds");
            }
            say(
                    "Replay into run %s from version 0 (lineage %s): %d transitions, offsets %s until"
                            + " %s, %d epoch(s)",
                    s.run(),
                    base.getLineage(),
                    slice.transitions(),
                    TransitionSlice.text(slice.from()),
                    TransitionSlice.text(slice.until()),
                    s.epochs());
            Optional<FilterPass.Result> filtered = Optional.empty();
            TransitionSlice trained = slice;
            if (s.filterRun().isPresent()) {
                filtered =
                        Optional.of(
                                new FilterPass(connection, output)
                                        .run(
                                                s.run(),
                                                s.filterRun().get(),
                                                slice,
                                                s.stateDir().resolve("filter"),
                                                s.filter(),
                                                admin));
                trained =
                        TransitionSlice.resolve(
                                admin,
                                connection,
                                catalog.run(s.run()).curriculum().name(),
                                SliceBound.EARLIEST,
                                SliceBound.LATEST);
                if (trained.transitions() == 0) {
                    throw new IllegalStateException(
                            "the filter kept none of the slice's transitions; lower"
                                    + " filter.easy.keep.probability's strictness or check the"
                                    + " filter model");
                }
            }
            final TransitionSlice input = trained;
            final PredictionConfig prediction = predictionConfig(s, input, base);
            final RewardConfig reward = rewardConfig(s, slice);
            final TrainerConfig trainer =
                    TrainerConfig.defaults(s.run()).with(merged(s.trainer(), connection.asMap()));
            moveGroup(admin, prediction.applicationId(), prediction.inputTopic(), input.from());
            final MeterRegistry meters = new SimpleMeterRegistry();
            final String predictionsTopic = catalog.run(s.run()).predictions().name();
            final String rewardsTopic = catalog.run(s.run()).rewards().name();
            try (PipelineStages stages =
                            PipelineStages.start(
                                    prediction, reward, trainer, meters, PublishListener.NONE);
                    RunMonitor observer = new RunMonitor(s.run(), connection, meters);
                    RunOutput.Live view = output.live()) {
                final Watch watch =
                        new Watch(stages, observer, view, "rwml replay " + s.run(), outer);
                for (int epoch = 1; epoch <= s.epochs(); epoch++) {
                    if (epoch > 1) {
                        stages.restartPrediction(
                                () ->
                                        moveGroup(
                                                admin,
                                                prediction.applicationId(),
                                                prediction.inputTopic(),
                                                input.from()));
                    }
                    final long target = epoch * input.transitions();
                    final int e = epoch;
                    watch.until(
                            () ->
                                    new LiveFacts.Bar(
                                            String.format(
                                                    Locale.ROOT,
                                                    "epoch %d/%d, transitions predicted",
                                                    e,
                                                    s.epochs()),
                                            Math.min(
                                                    input.transitions(),
                                                    observer.committedRecords(predictionsTopic)
                                                            + rejected(meters, s.run())
                                                            - (e - 1) * input.transitions()),
                                            input.transitions()));
                }
                final long predictions = observer.committedRecords(predictionsTopic);
                if (predictions > 0) {
                    watch.until(
                            () ->
                                    new LiveFacts.Bar(
                                            "groups rewarded",
                                            Math.min(
                                                    predictions,
                                                    observer.committedRecords(rewardsTopic)
                                                            + rewardDeadLetters(meters, s.run())),
                                            predictions));
                }
                view.close();
                say("All %d groups rewarded; the trainer finishes the rewards topic", predictions);
                stages.trainer().loop().finish();
                stages.trainer().await();
                final List<ModelVersion> versions = versions(s.run());
                final Result result =
                        new Result(
                                slice,
                                predictions,
                                observer.committedRecords(rewardsTopic),
                                versions,
                                filtered);
                summary(s, result);
                return result;
            }
        }
    }

    private ModelVersion prepareBase(final Settings s) {
        try (ModelChannel channel = ModelChannel.of(connection, s.run());
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), Duration.ofSeconds(60))) {
            final List<ModelVersion> existing = reader.manifests();
            if (s.fromRun().isEmpty()) {
                if (existing.isEmpty()) {
                    throw new IllegalArgumentException(
                            "run "
                                    + s.run()
                                    + " has no version 0: create it with `rwml model init --run "
                                    + s.run()
                                    + "`, or copy another run's base with --from-run RUN");
                }
                requireOnlyBase(s.run(), existing);
                return existing.get(0);
            }
            if (!existing.isEmpty()) {
                throw new IllegalArgumentException(
                        "run "
                                + s.run()
                                + " already has versions; --from-run copies a base into a new"
                                + " run only: choose another --run name");
            }
            final VerifiedArtifact source = baseOf(s.fromRun().get());
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(channel.producerConfig("rwml-replay-base-" + s.run()))) {
                producer.initTransactions();
                producer.beginTransaction();
                final ModelVersion sent =
                        ModelPublisher.chunked(channel)
                                .publish(
                                        producer,
                                        ModelVersion.newBuilder(source.manifest())
                                                .setRun(s.run())
                                                .setCreatedAt(Instant.now()),
                                        source.manifest().getArtifact().getFormat(),
                                        source.bytes(),
                                        ChunkObserver.NONE);
                producer.commitTransaction();
                say(
                        "Copied version 0 of run %s into run %s (sha256 %s)",
                        s.fromRun().get(), s.run(), sent.getArtifact().getSha256());
                return sent;
            }
        }
    }

    private static void requireOnlyBase(final String run, final List<ModelVersion> existing) {
        if (existing.size() > 1) {
            throw new IllegalArgumentException(
                    "run "
                            + run
                            + " already trained "
                            + (existing.size() - 1)
                            + " versions after its base; a replay trains a new run: choose"
                            + " another --run and pass --from-run "
                            + run);
        }
    }

    private VerifiedArtifact baseOf(final String fromRun) {
        try (ModelChannel channel = ModelChannel.of(connection, fromRun);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), Duration.ofSeconds(60))) {
            if (reader.manifest(0).isEmpty()) {
                throw new IllegalArgumentException(
                        "run " + fromRun + " has no version 0 to copy; check --from-run");
            }
            return reader.fetch(0);
        } catch (ArtifactRejectedException e) {
            throw new IllegalStateException(
                    "version 0 of run " + fromRun + " is unreadable: " + e.getMessage(), e);
        }
    }

    private PredictionConfig predictionConfig(
            final Settings s, final TransitionSlice slice, final ModelVersion base) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put(StreamsLifecycle.STATE_DIR, s.stateDir().resolve("prediction").toString());
        m.put("batch.max.wait", "PT0.5S");
        // Quick commits: the end of each epoch is seen from committed output.
        m.put("streams.commit.interval.ms", "500");
        final int maxNewTokens =
                Integer.parseInt(s.prediction().getOrDefault("sampling.max.new.tokens", "64"));
        final String context = base.getModelConfig().get("maxContext");
        if (context != null) {
            m.put("prompt.max.tokens", Integer.toString(Integer.parseInt(context) - maxNewTokens));
        }
        m.putAll(s.prediction());
        m.put("run", s.run());
        m.putAll(connection.asMap());
        m.put(StartPosition.SETTING, "earliest");
        m.put(StopAt.SETTING, new StopAt(slice.until()).text());
        if (s.filterRun().isPresent()) {
            m.put("input", PredictionConfig.INPUT_CURRICULUM);
        }
        return PredictionConfig.fromMap(m);
    }

    private RewardConfig rewardConfig(final Settings s, final TransitionSlice slice) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put(StreamsLifecycle.STATE_DIR, s.stateDir().resolve("reward").toString());
        // Stream time runs to the newest transition in the log; the slice's groups stay on time
        // when window and grace reach back to its oldest record (a day's margin for new ones).
        final Duration reach = Duration.between(slice.oldest(), Instant.now()).plusDays(1);
        m.put("join.window", reach.toString());
        m.put("join.grace", reach.toString());
        // Quick commits: the end of each epoch is seen from committed output.
        m.put("streams.commit.interval.ms", "500");
        if (s.filterRun().isPresent()) {
            // The filter pass already subsampled the easy transitions: not twice.
            m.put("easy.keep.probability", "1");
        }
        m.putAll(s.reward());
        m.put("run", s.run());
        m.putAll(connection.asMap());
        return RewardConfig.fromMap(m);
    }

    private static Map<String, String> merged(
            final Map<String, String> user, final Map<String, String> fixed) {
        final Map<String, String> m = new LinkedHashMap<>(user);
        m.putAll(fixed);
        return m;
    }

    /** Commits the slice start as a stage group's offsets on its input (the group is empty). */
    static void moveGroup(
            final Admin admin,
            final String groupId,
            final String topic,
            final Map<Integer, Long> offsets) {
        final Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        offsets.forEach(
                (p, o) -> commit.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
        TransitionSlice.get(admin.alterConsumerGroupOffsets(groupId, commit).all());
    }

    /** Transitions the prediction stage dead-lettered or filtered out (not past the slice end). */
    private static long rejected(final MeterRegistry meters, final String run) {
        return (long)
                (Meters.total(meters, PredictionMetrics.DEAD_LETTERS, run)
                        + Meters.total(
                                meters.find(PredictionMetrics.SKIPPED)
                                        .tag("run", run)
                                        .tag(
                                                "reason",
                                                r -> !PredictionMetrics.AFTER_STOP.equals(r))));
    }

    private static long rewardDeadLetters(final MeterRegistry meters, final String run) {
        return (long) Meters.total(meters, RewardMetrics.DEAD_LETTERS, run);
    }

    /** Shows the run's panel with a bar of the work waited for, until the bar is full. */
    private static final class Watch {
        private final PipelineStages stages;
        private final RunMonitor monitor;
        private final RunOutput.Live view;
        private final String title;
        private final List<LiveFacts.Bar> outer;
        private final long started = System.nanoTime();

        Watch(
                final PipelineStages stages,
                final RunMonitor monitor,
                final RunOutput.Live view,
                final String title,
                final List<LiveFacts.Bar> outer) {
            this.stages = stages;
            this.outer = outer;
            this.monitor = monitor;
            this.view = view;
            this.title = title;
        }

        void until(final Supplier<LiveFacts.Bar> work) throws InterruptedException {
            while (true) {
                final String failure = stages.failure();
                if (failure != null) {
                    throw new IllegalStateException("replay stopped: " + failure);
                }
                final LiveFacts.Bar bar = work.get();
                final RunMonitor.Snapshot s = monitor.poll(TICK);
                final Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
                LiveFacts facts = s.facts(title, bar.remaining(elapsed), "Ctrl-C stops");
                for (final LiveFacts.Bar o : outer) {
                    facts = facts.withBar(o);
                }
                view.show(facts.withBar(bar));
                if (bar.done() >= bar.total()) {
                    return;
                }
            }
        }
    }

    private List<ModelVersion> versions(final String run) {
        try (ModelChannel channel = ModelChannel.of(connection, run);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), Duration.ofSeconds(60))) {
            return reader.manifests();
        }
    }

    private void summary(final Settings s, final Result r) {
        say("Replay of run %s done:", s.run());
        say(
                "  transitions in the slice: %d (offsets %s until %s), %d epoch(s)",
                r.slice().transitions(),
                TransitionSlice.text(r.slice().from()),
                TransitionSlice.text(r.slice().until()),
                s.epochs());
        r.filter()
                .ifPresent(
                        f ->
                                say(
                                        "  filter pass: %d judged, %d easy, %d kept (the run"
                                                + " trained on those)",
                                        f.judged(), f.easy(), f.kept()));
        say("  prediction groups: %d, rewarded groups: %d", r.predictions(), r.rewards());
        say("  versions published after the base: %d", r.versions().size() - 1);
        for (final ModelVersion v : r.versions()) {
            final StringBuilder lineage = new StringBuilder();
            for (final OffsetRange range : v.getLineage()) {
                lineage.append(
                        String.format(
                                Locale.ROOT,
                                " %s-%d[%d,%d)",
                                range.getTopic(),
                                range.getPartition(),
                                range.getFromOffset(),
                                range.getUntilOffset()));
            }
            say("    version %d: lineage%s", v.getVersion(), lineage);
        }
        say("How replay differs from the live pipeline:");
        DIFFERENCES.forEach(d -> say("  - %s", d));
    }

    private void say(final String format, final Object... args) {
        output.say(format, args);
    }
}
