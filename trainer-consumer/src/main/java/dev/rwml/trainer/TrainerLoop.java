package dev.rwml.trainer;

import dev.rwml.channel.ChunkRetention;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.retry.Backoff;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 */
public final class TrainerLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TrainerLoop.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration FIRST_OUTAGE_BACKOFF = Duration.ofSeconds(1);

    /** The longest wait between two attempts to read a record while the registry is out. */
    static final Duration MAX_OUTAGE_BACKOFF = Duration.ofSeconds(30);

    private final TrainerConfig config;
    private final PolicyTrainerFactory factory;
    private final FaultHook hook;
    private final PublishListener listener;
    private final TrainerMetrics metrics;
    private final DeadLetterWriter deadLetterWriter;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean finishRequested;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    /**
     * Creates a trainer; {@link #run} does the work.
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
            final Run state = resume(channel, store);
            try (PolicyTrainer policy = state.policy;
                    KafkaConsumer<byte[], byte[]> c = newConsumer()) {
                consumer = c;
                if (!running) {
                    return state.version;
                }
                final Session session =
                        new Session(
                                producer,
                                c,
                                policy,
                                state,
                                rewards,
                                deadLetters,
                                topics,
                                new ModelPublisher(
                                        channel,
                                        config.chunkSizeBytes(),
                                        store,
                                        config.externalArtifactBytes()));
                session.loop();
                return session.state.version;
            } catch (final WakeupException e) {
                return state.version;
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

    /** What a trainer resumes from. */
    private static final class Run {
        final List<ModelVersion> published;
        final PolicyTrainer policy;
        long version;

        Run(final List<ModelVersion> published, final PolicyTrainer policy) {
            this.published = published;
            this.policy = policy;
            this.version = published.get(published.size() - 1).getVersion();
        }
    }

    private Run resume(final ModelChannel channel, final Optional<ArtifactStore> store) {
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
            return new Run(new ArrayList<>(published), factory.create(config, reference, current));
        } catch (final ArtifactRejectedException e) {
            throw new IllegalStateException(
                    e.getMessage() + "; the trainer cannot resume from an unreadable version", e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for version 0", e);
        }
    }

    /** One started trainer: the loop, its buffers and its open transaction. */
    private final class Session implements BatchAssembler.Sink {
        private final KafkaProducer<byte[], byte[]> producer;
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final PolicyTrainer policy;
        private final Run state;
        private final EventSerde<RewardedGroup> rewards;
        private final EventSerde<DeadLetter> deadLetters;
        private final RunTopics topics;
        private final ModelPublisher publisher;
        private final ChunkRetention retention = new ChunkRetention(config.keepVersions());
        private final TrainingWindow window = new TrainingWindow();
        private final BatchAssembler assembler;
        private final int maxBuffered = 4 * config.batchSize() + 500;
        private boolean inTransaction;
        private boolean paused;
        private long lastPublishNanos = System.nanoTime();
        private long passedOverSinceNanos = System.nanoTime();
        private final Backoff outage = new Backoff(FIRST_OUTAGE_BACKOFF, MAX_OUTAGE_BACKOFF);

        Session(
                final KafkaProducer<byte[], byte[]> producer,
                final KafkaConsumer<byte[], byte[]> consumer,
                final PolicyTrainer policy,
                final Run state,
                final EventSerde<RewardedGroup> rewards,
                final EventSerde<DeadLetter> deadLetters,
                final RunTopics topics,
                final ModelPublisher publisher) {
            this.producer = producer;
            this.consumer = consumer;
            this.policy = policy;
            this.state = state;
            this.rewards = rewards;
            this.deadLetters = deadLetters;
            this.topics = topics;
            this.publisher = publisher;
            this.assembler = new BatchAssembler(config, window, this);
        }

        void loop() {
            assignFromCommittedOffsets();
            while (running) {
                intake(consumer.poll(config.pollTimeout()));
                assembler.dropLeading(state.version);
                while (running && assembler.batchReady(System.nanoTime())) {
                    train(assembler.take(state.version));
                    assembler.dropLeading(state.version);
                    if (publishDue()) {
                        publish();
                    }
                }
                // Steps taken before a run of groups that never fill a batch still publish on time.
                if (running && publishDue()) {
                    publish();
                }
                commitPassedOverIfDue(System.nanoTime());
                applyBackPressure();
                if (finishRequested && caughtUp()) {
                    flush();
                    return;
                }
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
                train(assembler.take(state.version));
            }
            for (final TopicPartition tp : consumer.assignment()) {
                window.advanceTo(tp, consumer.position(tp, READ_TIMEOUT));
            }
            if (!window.lineage().isEmpty()) {
                publish();
            }
            LOG.info(
                    "Trainer of run {} finished at version {}: the rewards topic was read to its"
                            + " end",
                    config.run(),
                    state.version);
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
            if (window.restore(metadata, state.version)) {
                LOG.info(
                        "Trainer of run {}: groups skipped since version {} were committed"
                                + " without a version; version {} accounts for them (lineage {})",
                        config.run(),
                        state.version,
                        state.version + 1,
                        window.lineage());
            }
        }

        /**
         * Decodes and buffers polled records in order. When one fails because the registry is out,
         * it and every record after it are given back (each partition seeks to its first record not
         * buffered) and the loop waits before polling them again: nothing after the failed record
         * is buffered, so no offset past it is committed.
         */
        private void intake(final ConsumerRecords<byte[], byte[]> polled) {
            final Iterator<ConsumerRecord<byte[], byte[]>> records = polled.iterator();
            while (records.hasNext()) {
                final ConsumerRecord<byte[], byte[]> r = records.next();
                final BatchAssembler.Pending p = decode(r);
                if (p.error() != null) {
                    switch (ErrorPolicy.classify(p.error())) {
                        case RETRY -> {
                            rewind(r, records);
                            awaitOutage(r, p.error());
                            return;
                        }
                        case FAIL ->
                                // Not the record's fault and not passing (credentials, a non-Avro
                                // schema): dead-lettering would lose every record; stopping keeps
                                // them uncommitted.
                                throw new IllegalStateException(
                                        "the schema registry at "
                                                + config.schemaRegistryUrl()
                                                + " refused to resolve "
                                                + r.topic()
                                                + "-"
                                                + r.partition()
                                                + "@"
                                                + r.offset()
                                                + " ("
                                                + p.error().getMessage()
                                                + "); fix the registry settings and restart the"
                                                + " trainer, which resumes at that record",
                                        p.error());
                        case DEAD_LETTER -> {}
                    }
                }
                if (outage.attempts() > 0) {
                    LOG.info(
                            "Trainer of run {}: the schema registry at {} answers again after {}"
                                    + " attempt(s); reading resumes at {}-{}@{}",
                            config.run(),
                            config.schemaRegistryUrl(),
                            outage.attempts(),
                            r.topic(),
                            r.partition(),
                            r.offset());
                    outage.reset();
                }
                assembler.add(p, state.version, System.nanoTime());
            }
        }

        /**
         * Seeks each partition of {@code first} and {@code rest} to its first record among them.
         */
        private void rewind(
                final ConsumerRecord<byte[], byte[]> first,
                final Iterator<ConsumerRecord<byte[], byte[]>> rest) {
            final Map<TopicPartition, Long> to = new HashMap<>();
            to.put(new TopicPartition(first.topic(), first.partition()), first.offset());
            rest.forEachRemaining(
                    r -> to.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset()));
            to.forEach(consumer::seek);
        }

        private void awaitOutage(final ConsumerRecord<byte[], byte[]> r, final Throwable error) {
            final Duration wait = outage.next();
            metrics.outageRetry();
            LOG.warn(
                    "Trainer of run {}: the schema registry at {} is unavailable, so {}-{}@{}"
                            + " cannot be decoded; it is kept (not dead-lettered, nothing is"
                            + " committed past it) and read again in {} ms (attempt {}): {}",
                    config.run(),
                    config.schemaRegistryUrl(),
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    wait.toMillis(),
                    outage.attempts(),
                    error.getMessage());
            try {
                stopRequested.await(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }

        /**
         * Commits the offsets of records passed over without a step (skipped groups, dead letters)
         * in a transaction of their own once a batch of them is done or {@code batchTimeout} went
         * by since the first: when a step would have come, so an idle trainer's lag stays zero.
         * Only while no step is pending (those offsets commit with their version); the window stays
         * open, so the next version's lineage and counters include the skipped records.
         */
        private void commitPassedOverIfDue(final long nowNanos) {
            if (window.steps() == 0 && assembler.size() == 0) {
                // Nothing is buffered: all up to the consumer's positions is done, transaction
                // markers included, so a caught-up trainer commits the topic's end and its lag
                // reads 0 rather than one marker per partition.
                for (final TopicPartition tp : consumer.assignment()) {
                    window.advanceTo(tp, consumer.position(tp, READ_TIMEOUT));
                }
            }
            if (window.steps() > 0 || window.uncommitted() == 0) {
                passedOverSinceNanos = nowNanos;
                return;
            }
            if (window.uncommitted() < config.batchSize()
                    && nowNanos - passedOverSinceNanos < config.batchTimeout().toNanos()) {
                return;
            }
            final Map<TopicPartition, OffsetAndMetadata> offsets =
                    window.offsetsToCommitWithoutVersion(state.version);
            ensureTransaction();
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            producer.commitTransaction();
            inTransaction = false;
            LOG.debug(
                    "Trainer of run {}: committed {} record(s) passed over without a step on top"
                            + " of version {}: {}",
                    config.run(),
                    window.uncommitted(),
                    state.version,
                    offsets);
            window.committedWithoutVersion();
            metrics.skippedCommit();
            passedOverSinceNanos = nowNanos;
        }

        private BatchAssembler.Pending decode(final ConsumerRecord<byte[], byte[]> r) {
            try {
                final RewardedGroup g = rewards.deserializer().deserialize(r.topic(), r.value());
                if (g == null) {
                    throw new IllegalArgumentException("a null value (tombstone) is not a group");
                }
                final String invalid = GroupRules.invalidReason(r.key(), g);
                if (invalid != null) {
                    throw new IllegalArgumentException(invalid);
                }
                final String future = GroupVerdict.fromTheFuture(g, config.run(), state.version);
                if (future != null) {
                    throw new IllegalArgumentException(future);
                }
                // the group's own fault, and it would fail again after a restart
                final Optional<String> unfit = policy.unfit(g);
                if (unfit.isPresent()) {
                    throw new IllegalArgumentException(
                            "group "
                                    + g.getTransitionId()
                                    + " cannot be trained on: "
                                    + unfit.get());
                }
                return new BatchAssembler.Pending(r, g, null);
            } catch (final RuntimeException e) {
                return new BatchAssembler.Pending(r, null, e);
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
                    state.version,
                    p.record().topic(),
                    p.record().partition(),
                    p.record().offset());
        }

        @Override
        public void deadLetter(final BatchAssembler.Pending p) {
            final ConsumerRecord<byte[], byte[]> r = p.record();
            LOG.warn(
                    "Trainer: dead-lettering {}-{}@{}: {}",
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    p.error().getMessage());
            final ProducerRecord<byte[], byte[]> out =
                    DeadLetterWriter.encoded(
                            deadLetterWriter.deadLetter(DeadLetterWriter.Source.of(r), p.error()),
                            deadLetters.serializer());
            ensureTransaction();
            producer.send(out);
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
                window.trained(g, state.version - g.getModelVersion());
            }
            metrics.trained(groups.size());
        }

        private boolean publishDue() {
            return window.steps() >= config.publishEverySteps()
                    || (window.steps() > 0
                            && System.nanoTime() - lastPublishNanos
                                    >= config.publishInterval().toNanos());
        }

        private void publish() {
            final long t0 = System.nanoTime();
            final long next = state.version + 1;
            final byte[] artifact = policy.checkpoint(next);
            ensureTransaction();
            final Optional<ModelVersion> retire = retention.toRetire(state.published);
            final ModelVersion.Builder manifest =
                    ModelVersion.newBuilder()
                            .setRun(config.run())
                            .setVersion(next)
                            .setParentVersion(state.version)
                            .setCreatedAt(Instant.now())
                            .setObjective(config.objective().wireName())
                            .setCounters(window.counters())
                            .setMetrics(window.metrics())
                            .setStalenessHistogram(window.stalenessHistogram())
                            .setLineage(window.lineage())
                            .setModelConfig(policy.modelConfig())
                            .setTrainerConfig(config.asMap());
            final ModelVersion sent =
                    publisher.publish(
                            producer,
                            manifest,
                            policy.artifactFormat(),
                            artifact,
                            (version, index, count) -> {
                                if (index < count - 1) {
                                    hook.at(FaultPoint.BETWEEN_CHUNKS);
                                }
                            });
            retire.ifPresent(old -> publisher.retire(producer, old));
            producer.sendOffsetsToTransaction(window.offsetsToCommit(), consumer.groupMetadata());
            hook.at(FaultPoint.BEFORE_COMMIT);
            producer.commitTransaction();
            inTransaction = false;
            state.published.add(sent);
            state.version = next;
            lastPublishNanos = System.nanoTime();
            metrics.published(next, Duration.ofNanos(lastPublishNanos - t0));
            LOG.info(
                    "Trainer: committed version {} of run {} ({} steps, {} groups, published in {}"
                            + " ms, lineage {})",
                    next,
                    config.run(),
                    window.steps(),
                    window.groups(),
                    (lastPublishNanos - t0) / 1_000_000,
                    sent.getLineage());
            listener.published(sent, window.trainedIds());
            window.reset();
            hook.at(FaultPoint.AFTER_COMMIT);
        }

        private void ensureTransaction() {
            if (!inTransaction) {
                producer.beginTransaction();
                inTransaction = true;
            }
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
