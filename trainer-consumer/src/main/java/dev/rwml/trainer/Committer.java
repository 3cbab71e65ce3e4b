package dev.rwml.trainer;

import dev.rwml.channel.ChunkRetention;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelVersion;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerde;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the trainer writes, in its producer's one open transaction: dead letters, then either
 * a version with the offsets it trained on, or the offsets of records passed over without a step.
 */
final class Committer {

    private static final Logger LOG = LoggerFactory.getLogger(Committer.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private final TrainerConfig config;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TrainingWindow window;
    private final PublishedVersions versions;
    private final PolicyTrainer policy;
    private final ModelPublisher publisher;
    private final ChunkRetention retention;
    private final DeadLetterWriter deadLetterWriter;
    private final EventSerde<DeadLetter> deadLetters;
    private final TrainerMetrics metrics;
    private final PublishListener listener;
    private final FaultHook hook;
    private boolean inTransaction;
    private long lastPublishNanos = System.nanoTime();
    private long passedOverSinceNanos = System.nanoTime();

    Committer(
            final TrainerConfig config,
            final KafkaProducer<byte[], byte[]> producer,
            final KafkaConsumer<byte[], byte[]> consumer,
            final TrainingWindow window,
            final PublishedVersions versions,
            final PolicyTrainer policy,
            final ModelPublisher publisher,
            final DeadLetterWriter deadLetterWriter,
            final EventSerde<DeadLetter> deadLetters,
            final TrainerMetrics metrics,
            final PublishListener listener,
            final FaultHook hook) {
        this.config = config;
        this.producer = producer;
        this.consumer = consumer;
        this.window = window;
        this.versions = versions;
        this.policy = policy;
        this.publisher = publisher;
        this.retention = new ChunkRetention(config.keepVersions());
        this.deadLetterWriter = deadLetterWriter;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.listener = listener;
        this.hook = hook;
    }

    /** Sends a record that failed by its own fault to the run's dead-letter topic. */
    void deadLetter(final BatchAssembler.Pending p) {
        final ConsumerRecord<byte[], byte[]> r = p.record();
        LOG.warn(
                "Trainer: dead-lettering {}-{}@{}: {}",
                r.topic(),
                r.partition(),
                r.offset(),
                p.error().getMessage());
        final ProducerRecord<byte[], byte[]> out =
                deadLetterWriter.encoded(
                        DeadLetterWriter.Source.of(r),
                        p.error(),
                        DeadLetters.reasonOf(p.error()),
                        deadLetters.serializer());
        ensureTransaction();
        producer.send(out);
    }

    /** Whether enough steps, or enough time with at least one step, make a version due. */
    boolean publishDue() {
        return window.steps() >= config.publishEverySteps()
                || (window.steps() > 0
                        && System.nanoTime() - lastPublishNanos
                                >= config.publishInterval().toNanos());
    }

    /**
     * Publishes the next version and commits it with the offsets it trained on, retiring the chunks
     * of a version retention lets go, all in one transaction.
     */
    void publish() {
        final long t0 = System.nanoTime();
        final long current = versions.latest();
        final long next = current + 1;
        final byte[] artifact = policy.checkpoint(next);
        ensureTransaction();
        final Optional<ModelVersion> retire = retention.toRetire(versions.all());
        final ModelVersion.Builder manifest =
                ModelVersion.newBuilder()
                        .setRun(config.run())
                        .setVersion(next)
                        .setParentVersion(current)
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
        versions.add(sent);
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

    /**
     * Commits the offsets of records passed over without a step (skipped groups, dead letters) in a
     * transaction of their own once a batch of them is done or {@code batchTimeout} went by since
     * the first: when a step would have come, so an idle trainer's lag stays zero. Only while no
     * step is pending (those offsets commit with their version); the window stays open, so the next
     * version's lineage and counters include the skipped records.
     *
     * @param buffered groups read and not yet trained or passed over
     */
    void commitPassedOverIfDue(final long nowNanos, final int buffered) {
        if (window.steps() == 0 && buffered == 0) {
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
        commitPassedOver();
        passedOverSinceNanos = nowNanos;
    }

    /**
     * Commits the offsets of records passed over without a step now, in a transaction of their own
     * (see {@link #commitPassedOverIfDue}); nothing happens while a step is pending or nothing is
     * uncommitted.
     */
    void commitPassedOver() {
        if (window.steps() > 0 || window.uncommitted() == 0) {
            return;
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets =
                window.offsetsToCommitWithoutVersion(versions.latest());
        ensureTransaction();
        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
        producer.commitTransaction();
        inTransaction = false;
        LOG.debug(
                "Trainer of run {}: committed {} record(s) passed over without a step on top"
                        + " of version {}: {}",
                config.run(),
                window.uncommitted(),
                versions.latest(),
                offsets);
        window.committedWithoutVersion();
        metrics.skippedCommit();
    }

    private void ensureTransaction() {
        if (!inTransaction) {
            producer.beginTransaction();
            inTransaction = true;
        }
    }
}
