package dev.rwml.trainer;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.ArtifactStore;
import dev.rwml.worldmodel.artifact.FileArtifactStore;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The continual trainer: consumes {@code rwml.<run>.rewards} (key transitionId, value
 * RewardedGroup) with read_committed, takes GRPO (or SFT) steps, and every {@code
 * publishEverySteps} steps (or {@code publishInterval}) publishes version v+1 on {@code
 * rwml.<run>.models} / {@code .model-chunks} in one Kafka transaction with the offsets it trained
 * on. Undecodable records go to {@code rwml.<run>.dead-letters} in the same transaction.
 *
 * <p>A record that cannot be decoded because the schema registry is out (unreachable, 5xx,
 * timeouts: {@link ErrorPolicy#isOutage}) is not the record's fault: the trainer keeps it, seeks
 * back to it, waits (exponentially, up to {@link #MAX_OUTAGE_BACKOFF}) and reads it again, and
 * never commits past it. Records passed over without a step (skipped groups, dead letters) are
 * committed in a transaction of their own, without a version, once a batch of them or {@code
 * batchTimeout} has gone by, so the lag does not grow while nothing trains; the next version's
 * lineage and counters still include them (see {@link TrainingWindow}).
 *
 * <p>A crash at any point leaves either the old version with the old offsets or the new version
 * with the new ones: on start it fences the previous instance (transactional id {@code
 * rwml-<run>-trainer}), loads the latest version and resumes from the offsets committed with it.
 *
 * <p>A replay that must train the same models on any machine paces the trainer {@link
 * Pacing#BY_ROUND by round} instead of {@link Pacing#ON_ARRIVAL on arrival}: see {@link
 * #closeRound}.
 */
public final class TrainerLoop implements AutoCloseable {

    /** When the trainer takes its steps and publishes. */
    public enum Pacing {
        /**
         * The live trainer: a batch once {@code batch.size} trainable groups wait (or a partial one
         * after {@code batch.timeout}), in arrival order; a version every {@code
         * publish.every.steps} steps or {@code publish.interval}.
         */
        ON_ARRIVAL,
        /**
         * Only when a round is closed ({@link #closeRound}): everything buffered then is trained in
         * an order fixed by the groups themselves, in batches of {@code batch.size} (the last one
         * partial), and one version holds the round. Nothing depends on timing.
         */
        BY_ROUND
    }

    private static final Logger LOG = LoggerFactory.getLogger(TrainerLoop.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    /** The longest wait between two attempts to read a record while the registry is out. */
    static final Duration MAX_OUTAGE_BACKOFF = Duration.ofSeconds(30);

    private final TrainerConfig config;
    private final PolicyTrainerFactory factory;
    private final FaultHook hook;
    private final PublishListener listener;
    private final TrainerMetrics metrics;
    private final DeadLetterWriter deadLetterWriter;
    private final Pacing pacing;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final AtomicReference<CompletableFuture<Long>> roundRequest = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile boolean finishRequested;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    /**
     * Creates a trainer paced {@link Pacing#ON_ARRIVAL on arrival}; {@link #run} does the work.
     *
     * @param hook called at each {@link FaultPoint} ({@link FaultHook#NONE} in production)
     * @param listener told after each committed version
     */
    public TrainerLoop(
            final TrainerConfig config,
            final PolicyTrainerFactory factory,
            final MeterRegistry meters,
            final FaultHook hook,
            final PublishListener listener) {
        this(config, factory, meters, hook, listener, Pacing.ON_ARRIVAL);
    }

    /** Creates a trainer with the given pacing; {@link #run} does the work. */
    public TrainerLoop(
            final TrainerConfig config,
            final PolicyTrainerFactory factory,
            final MeterRegistry meters,
            final FaultHook hook,
            final PublishListener listener,
            final Pacing pacing) {
        this.pacing = pacing;
        this.config = config;
        this.factory = factory;
        this.hook = hook;
        this.listener = listener;
        this.metrics = new TrainerMetrics(meters, config.run());
        this.deadLetterWriter =
                new DeadLetterWriter(
                        StageName.TRAINER,
                        TopicCatalog.defaults().run(config.run()).deadLetters(),
                        metrics::deadLettered,
                        Clock.systemUTC());
    }

    /** The transactional id and consumer group of a run's trainer. */
    public static String transactionalId(final String run) {
        return StageName.TRAINER.groupId(run);
    }

    /**
     * Trains until {@link #close} is called, returning the last committed version.
     *
     * @throws RuntimeException when a step, the broker or a fault hook fails: nothing since the
     *     last committed version is kept, and a restart resumes from it
     */
    public long run() {
        try {
            return runSession();
        } finally {
            final CompletableFuture<Long> open = roundRequest.getAndSet(null);
            if (open != null) {
                open.completeExceptionally(
                        new IllegalStateException(
                                "the trainer of run "
                                        + config.run()
                                        + " stopped before the round was closed"));
            }
        }
    }

    private long runSession() {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics topics = catalog.run(config.run());
        final Map<String, Object> registry = config.connection().registryConfig();
        ensureTopics(catalog);
        final Optional<ArtifactStore> store =
                config.artifactDir().map(dir -> (ArtifactStore) new FileArtifactStore(dir));
        try (ModelChannel channel = ModelChannel.of(config.connection(), config.run());
                EventSerde<RewardedGroup> rewards = topics.rewards().valueSerde(registry);
                EventSerde<DeadLetter> deadLetters = topics.deadLetters().valueSerde(registry);
                KafkaProducer<byte[], byte[]> producer = newProducer(channel)) {
            // Fences a previous instance and aborts its open transaction before anything is read,
            // so the latest version and the committed offsets below are consistent.
            producer.initTransactions();
            final Resumed resumed = resume(channel, store);
            final PublishedVersions versions = resumed.versions();
            try (PolicyTrainer policy = resumed.policy();
                    KafkaConsumer<byte[], byte[]> c = newConsumer()) {
                consumer = c;
                if (!running) {
                    return versions.latest();
                }
                final ModelPublisher publisher =
                        new ModelPublisher(
                                channel,
                                config.chunkSizeBytes(),
                                store,
                                config.externalArtifactBytes());
                new Session(c, policy, versions, topics, producer, rewards, deadLetters, publisher)
                        .loop();
                return versions.latest();
            } catch (final WakeupException e) {
                return versions.latest();
            } finally {
                consumer = null;
            }
        }
    }

    /** Stops {@link #run} at the next poll; what was trained since the last version is dropped. */
    @Override
    public void close() {
        running = false;
        stopRequested.countDown();
        final KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    /**
     * Asks {@link #run} to end once it has read the rewards topic to its current end: it trains
     * what it buffered (a partial batch too), publishes a last version whose lineage reaches the
     * end, and returns. For bounded inputs such as {@code rwml replay}; {@link #close} instead
     * drops the work since the last version.
     */
    public void finish() {
        finishRequested = true;
    }

    /**
     * Closes a round of a trainer paced {@link Pacing#BY_ROUND by round}: once it has read the
     * rewards topic to its current (committed) end, it trains every buffered trainable group in an
     * order fixed by the groups, in batches of {@code batch.size}, publishes one version holding
     * them (or, when none was trainable, commits the offsets passed over), and completes the future
     * with its latest version. The version cadence is the caller's round size. The caller makes
     * sure the round's groups were all committed first.
     *
     * @throws IllegalStateException when the trainer is paced on arrival, or a round is still open
     */
    public CompletableFuture<Long> closeRound() {
        if (pacing != Pacing.BY_ROUND) {
            throw new IllegalStateException(
                    "the trainer of run " + config.run() + " trains on arrival, not by round");
        }
        final CompletableFuture<Long> request = new CompletableFuture<>();
        if (!roundRequest.compareAndSet(null, request)) {
            throw new IllegalStateException(
                    "the trainer of run " + config.run() + " is still closing the last round");
        }
        return request;
    }

    private void ensureTopics(final TopicCatalog catalog) {
        try (Admin admin = config.connection().admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(config.run()));
        }
    }

    private KafkaProducer<byte[], byte[]> newProducer(final ModelChannel channel) {
        final Map<String, Object> p = channel.producerConfig(transactionalId(config.run()));
        // A version's transaction stays open while its chunks are sent; an abandoned one blocks
        // readers of the run's topics only until this timeout or the next trainer start.
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 120_000);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId(config.run()));
        return new KafkaProducer<>(p);
    }

    private KafkaConsumer<byte[], byte[]> newConsumer() {
        return new KafkaConsumer<>(
                config.connection()
                        .readCommittedConsumerConfig(
                                transactionalId(config.run()) + "-rewards",
                                Map.of(
                                        ConsumerConfig.GROUP_ID_CONFIG,
                                        transactionalId(config.run()),
                                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                        "earliest",
                                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                                        Math.max(config.batchSize(), 100))));
    }

    /** What a trainer resumes from: the versions published so far and a trainer of the latest. */
    private record Resumed(PublishedVersions versions, PolicyTrainer policy) {}

    private Resumed resume(final ModelChannel channel, final Optional<ArtifactStore> store) {
        try (ModelChannelReader reader = new ModelChannelReader(channel, store, READ_TIMEOUT)) {
            List<ModelVersion> published = reader.manifests();
            while (published.isEmpty() && running) {
                LOG.info(
                        "Trainer: waiting for version 0 of run {}; publish it with `rwml model init"
                                + " --run {}`",
                        config.run(),
                        config.run());
                if (stopRequested.await(2, TimeUnit.SECONDS)) {
                    break;
                }
                published = reader.manifests();
            }
            if (published.isEmpty()) {
                throw new IllegalStateException(
                        "stopped before version 0 of run " + config.run() + " was published");
            }
            final ModelVersion latest = published.get(published.size() - 1);
            final VerifiedArtifact reference = reader.fetch(published.get(0));
            final VerifiedArtifact current =
                    latest.getVersion() == 0 ? reference : reader.fetch(latest);
            LOG.info(
                    "Trainer of run {} resumes from version {} ({} versions published, reference"
                            + " version {})",
                    config.run(),
                    latest.getVersion(),
                    published.size(),
                    reference.version());
            metrics.version(latest.getVersion());
            return new Resumed(
                    new PublishedVersions(published), factory.create(config, reference, current));
        } catch (final ArtifactRejectedException e) {
            throw new IllegalStateException(
                    e.getMessage() + "; the trainer cannot resume from an unreadable version", e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for version 0", e);
        }
    }

    /**
     * One started trainer: the loop that reads ({@link Intake}), trains and commits ({@link
     * Committer}), its buffer and its back-pressure.
     */
    private final class Session implements BatchAssembler.Sink {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final PolicyTrainer policy;
        private final PublishedVersions versions;
        private final RunTopics topics;
        private final TrainingWindow window = new TrainingWindow();
        private final BatchAssembler assembler;
        private final Intake intake;
        private final Committer committer;
        private final int maxBuffered = 4 * config.batchSize() + 500;
        private boolean paused;
        private long roundsClosed;

        Session(
                final KafkaConsumer<byte[], byte[]> consumer,
                final PolicyTrainer policy,
                final PublishedVersions versions,
                final RunTopics topics,
                final KafkaProducer<byte[], byte[]> producer,
                final EventSerde<RewardedGroup> rewards,
                final EventSerde<DeadLetter> deadLetters,
                final ModelPublisher publisher) {
            this.consumer = consumer;
            this.policy = policy;
            this.versions = versions;
            this.topics = topics;
            this.assembler = new BatchAssembler(config, window, this);
            this.intake = new Intake(config, consumer, rewards, policy, metrics, stopRequested);
            this.committer =
                    new Committer(
                            config,
                            producer,
                            consumer,
                            window,
                            versions,
                            policy,
                            publisher,
                            deadLetterWriter,
                            deadLetters,
                            metrics,
                            listener,
                            hook);
        }

        void loop() {
            assignFromCommittedOffsets();
            while (running) {
                read(consumer.poll(config.pollTimeout()));
                if (pacing == Pacing.ON_ARRIVAL) {
                    trainOnArrival();
                } else {
                    closeRoundIfRequested();
                }
                if (finishRequested && caughtUp()) {
                    flush();
                    return;
                }
            }
        }

        private void trainOnArrival() {
            assembler.dropLeading(versions.latest());
            while (running && assembler.batchReady(System.nanoTime())) {
                train(assembler.take(versions.latest()));
                assembler.dropLeading(versions.latest());
                if (committer.publishDue()) {
                    committer.publish();
                }
            }
            // Steps taken before a run of groups that never fill a batch still publish on time.
            if (running && committer.publishDue()) {
                committer.publish();
            }
            committer.commitPassedOverIfDue(System.nanoTime(), assembler.size());
            applyBackPressure();
        }

        /**
         * Closes the requested round once the rewards topic was read to its end. Its whole content
         * is buffered (a round trainer applies no back-pressure), so the order it trains in is
         * fixed by the groups alone.
         */
        private void closeRoundIfRequested() {
            final CompletableFuture<Long> request = roundRequest.get();
            if (request == null || !running || !caughtUp()) {
                return;
            }
            final List<BatchAssembler.Pending> groups =
                    assembler.takeAll(versions.latest(), roundsClosed);
            // One version holds the round: its offsets commit with it, so a crash loses nothing
            // and trains nothing twice.
            for (int from = 0; from < groups.size(); from += config.batchSize()) {
                train(groups.subList(from, Math.min(groups.size(), from + config.batchSize())));
            }
            for (final TopicPartition tp : consumer.assignment()) {
                window.advanceTo(tp, consumer.position(tp, READ_TIMEOUT));
            }
            if (window.steps() > 0) {
                committer.publish();
            } else {
                committer.commitPassedOver();
            }
            roundsClosed++;
            LOG.info(
                    "Trainer of run {}: round {} closed, {} group(s) trained; version {}",
                    config.run(),
                    roundsClosed,
                    groups.size(),
                    versions.latest());
            roundRequest.set(null);
            request.complete(versions.latest());
        }

        private void read(final ConsumerRecords<byte[], byte[]> polled) {
            try {
                intake.read(
                        polled,
                        versions.latest(),
                        p -> assembler.add(p, versions.latest(), System.nanoTime()));
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }

        /** Whether every assigned partition was read up to its (read_committed) end. */
        private boolean caughtUp() {
            if (paused) {
                return false;
            }
            final Map<TopicPartition, Long> ends =
                    consumer.endOffsets(consumer.assignment(), READ_TIMEOUT);
            return ends.entrySet().stream()
                    .allMatch(e -> consumer.position(e.getKey(), READ_TIMEOUT) >= e.getValue());
        }

        /**
         * Trains every buffered group, then publishes a version covering everything read up to the
         * consumer's positions (past transaction markers), even when no step was taken since the
         * last version, so the lineage ends where the topic ends.
         */
        private void flush() {
            while (assembler.size() > 0) {
                train(assembler.take(versions.latest()));
            }
            for (final TopicPartition tp : consumer.assignment()) {
                window.advanceTo(tp, consumer.position(tp, READ_TIMEOUT));
            }
            if (!window.lineage().isEmpty()) {
                committer.publish();
            }
            LOG.info(
                    "Trainer of run {} finished at version {}: the rewards topic was read to its"
                            + " end",
                    config.run(),
                    versions.latest());
        }

        private void assignFromCommittedOffsets() {
            final String topic = topics.rewards().name();
            final List<TopicPartition> partitions = new ArrayList<>();
            for (final PartitionInfo p : consumer.partitionsFor(topic, READ_TIMEOUT)) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
            consumer.assign(partitions);
            final Map<TopicPartition, OffsetAndMetadata> committed =
                    consumer.committed(Set.copyOf(partitions), READ_TIMEOUT);
            final Map<TopicPartition, Long> start = new HashMap<>();
            final Map<TopicPartition, Long> beginning =
                    consumer.beginningOffsets(partitions, READ_TIMEOUT);
            for (final TopicPartition tp : partitions) {
                final OffsetAndMetadata c = committed.get(tp);
                final long from = c == null ? beginning.get(tp) : c.offset();
                consumer.seek(tp, from);
                start.put(tp, from);
            }
            window.start(start);
            final Map<TopicPartition, String> metadata = new HashMap<>();
            committed.forEach(
                    (tp, c) -> {
                        if (c != null) {
                            metadata.put(tp, c.metadata());
                        }
                    });
            LOG.info("Trainer of run {} consumes {} from {}", config.run(), topic, start);
            if (window.restore(metadata, versions.latest())) {
                LOG.info(
                        "Trainer of run {}: groups skipped since version {} were committed"
                                + " without a version; version {} accounts for them (lineage {})",
                        config.run(),
                        versions.latest(),
                        versions.latest() + 1,
                        window.lineage());
            }
        }

        @Override
        public void dropped(final BatchAssembler.Pending p, final GroupVerdict verdict) {
            window.dropped(verdict);
            metrics.dropped(verdict);
            LOG.debug(
                    "Trainer: {} group {} of version {} at version {} ({}-{}@{})",
                    verdict,
                    p.group().getTransitionId(),
                    p.group().getModelVersion(),
                    versions.latest(),
                    p.record().topic(),
                    p.record().partition(),
                    p.record().offset());
        }

        @Override
        public void deadLetter(final BatchAssembler.Pending p) {
            committer.deadLetter(p);
        }

        private void train(final List<BatchAssembler.Pending> batch) {
            if (batch.isEmpty()) {
                return;
            }
            final List<RewardedGroup> groups = new ArrayList<>(batch.size());
            for (final BatchAssembler.Pending p : batch) {
                groups.add(p.group());
            }
            final List<List<RewardedGroup>> miniBatches = split(groups, config.miniBatches());
            for (int pass = 0; pass < config.passes(); pass++) {
                for (final List<RewardedGroup> mb : miniBatches) {
                    final long t0 = System.nanoTime();
                    final StepStats stats = policy.step(mb);
                    metrics.step(Duration.ofNanos(System.nanoTime() - t0), stats.tokens());
                    window.step(stats);
                    hook.at(FaultPoint.BETWEEN_STEPS);
                }
            }
            for (final RewardedGroup g : groups) {
                window.trained(g, versions.latest() - g.getModelVersion());
            }
            metrics.trained(groups.size());
        }

        private void applyBackPressure() {
            if (!paused && assembler.size() >= maxBuffered) {
                consumer.pause(consumer.assignment());
                paused = true;
            } else if (paused && assembler.size() < maxBuffered / 2) {
                consumer.resume(consumer.assignment());
                paused = false;
            }
        }
    }

    /** Splits {@code groups} into {@code parts} nearly equal, non-empty mini-batches. */
    static <T> List<List<T>> split(final List<T> groups, final int parts) {
        final int n = Math.min(parts, groups.size());
        final List<List<T>> out = new ArrayList<>(n);
        int from = 0;
        for (int i = 0; i < n; i++) {
            final int size = (groups.size() - from) / (n - i);
            out.add(List.copyOf(groups.subList(from, from + size)));
            from += size;
        }
        return out;
    }
}
