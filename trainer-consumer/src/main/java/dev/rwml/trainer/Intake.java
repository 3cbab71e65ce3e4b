package dev.rwml.trainer;

import dev.rwml.events.RewardedGroup;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.retry.Backoff;
import dev.rwml.schemas.serde.EventSerde;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer's reading of rewarded groups: decodes each polled record and judges it (invalid, from
 * the future, unfit for the model: the record's fault), and what {@link ErrorPolicy} says of a
 * failure. When the registry is out, the failed record and every one after it are given back (each
 * partition seeks to its first record not taken) and it waits before they are polled again, so
 * nothing after the failed record is taken and no offset past it is committed.
 */
final class Intake {

    private static final Logger LOG = LoggerFactory.getLogger(Intake.class);
    private static final Duration FIRST_OUTAGE_BACKOFF = Duration.ofSeconds(1);

    private final TrainerConfig config;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final EventSerde<RewardedGroup> rewards;
    private final PolicyTrainer policy;
    private final TrainerMetrics metrics;
    private final CountDownLatch stopRequested;
    private final Backoff outage =
            new Backoff(FIRST_OUTAGE_BACKOFF, TrainerLoop.MAX_OUTAGE_BACKOFF);

    Intake(
            final TrainerConfig config,
            final KafkaConsumer<byte[], byte[]> consumer,
            final EventSerde<RewardedGroup> rewards,
            final PolicyTrainer policy,
            final TrainerMetrics metrics,
            final CountDownLatch stopRequested) {
        this.config = config;
        this.consumer = consumer;
        this.rewards = rewards;
        this.policy = policy;
        this.metrics = metrics;
        this.stopRequested = stopRequested;
    }

    /**
     * Decodes polled records in order and hands each to {@code take}, until one fails for a reason
     * that is not its own.
     *
     * @param version the latest committed version (a group from a later one is invalid)
     * @throws IllegalStateException when the registry refuses (credentials, a non-Avro schema):
     *     dead-lettering would lose every record, stopping keeps them uncommitted
     * @throws InterruptedException when interrupted while waiting out an outage
     */
    void read(
            final ConsumerRecords<byte[], byte[]> polled,
            final long version,
            final Consumer<BatchAssembler.Pending> take)
            throws InterruptedException {
        final Iterator<ConsumerRecord<byte[], byte[]>> records = polled.iterator();
        while (records.hasNext()) {
            final ConsumerRecord<byte[], byte[]> r = records.next();
            final BatchAssembler.Pending p = decode(r, version);
            if (p.error() != null) {
                switch (ErrorPolicy.classify(p.error())) {
                    case RETRY -> {
                        rewind(r, records);
                        awaitOutage(r, p.error());
                        return;
                    }
                    case FAIL ->
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
            take.accept(p);
        }
    }

    private BatchAssembler.Pending decode(
            final ConsumerRecord<byte[], byte[]> r, final long version) {
        try {
            final RewardedGroup g = rewards.deserializer().deserialize(r.topic(), r.value());
            if (g == null) {
                throw new IllegalArgumentException("a null value (tombstone) is not a group");
            }
            final String invalid = GroupRules.invalidReason(r.key(), g);
            if (invalid != null) {
                throw new IllegalArgumentException(invalid);
            }
            final String future = GroupVerdict.fromTheFuture(g, config.run(), version);
            if (future != null) {
                throw new IllegalArgumentException(future);
            }
            // the group's own fault, and it would fail again after a restart
            final Optional<String> unfit = policy.unfit(g);
            if (unfit.isPresent()) {
                throw new IllegalArgumentException(
                        "group " + g.getTransitionId() + " cannot be trained on: " + unfit.get());
            }
            return new BatchAssembler.Pending(r, g, null);
        } catch (final RuntimeException e) {
            return new BatchAssembler.Pending(r, null, e);
        }
    }

    /** Seeks each partition of {@code first} and {@code rest} to its first record among them. */
    private void rewind(
            final ConsumerRecord<byte[], byte[]> first,
            final Iterator<ConsumerRecord<byte[], byte[]>> rest) {
        final Map<TopicPartition, Long> to = new HashMap<>();
        to.put(new TopicPartition(first.topic(), first.partition()), first.offset());
        rest.forEachRemaining(
                r -> to.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset()));
        to.forEach(consumer::seek);
    }

    private void awaitOutage(final ConsumerRecord<byte[], byte[]> r, final Throwable error)
            throws InterruptedException {
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
        stopRequested.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    }
}
