package dev.rwml.trainer;

import dev.rwml.events.RewardedGroup;
import dev.rwml.runtime.errors.ErrorPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Buffers consumed records in arrival order and hands out batches. Records leave the buffer only
 * from its head, so the offsets marked done in the {@link TrainingWindow} never run ahead of a
 * group still waiting to be trained: committing them cannot skip a group.
 */
final class BatchAssembler {

    /**
     * One consumed record: its group, or the error that kept it from decoding.
     *
     * @param record the raw record (kept for dead letters)
     * @param group the decoded group, null when undecodable
     * @param error why it did not decode, null when it did; a fault of the record, never an outage
     *     (those are retried before a record gets here)
     */
    record Pending(
            ConsumerRecord<byte[], byte[]> record, RewardedGroup group, RuntimeException error) {

        TopicPartition partition() {
            return new TopicPartition(record.topic(), record.partition());
        }
    }

    /** Where records that will not be trained go. */
    interface Sink {
        /** A decoded group that will not be trained. */
        void dropped(Pending pending, GroupVerdict verdict);

        /** A record that did not decode because of its own fault. */
        void deadLetter(Pending pending);
    }

    private final Deque<Pending> queue = new ArrayDeque<>();
    private final TrainerConfig config;
    private final TrainingWindow window;
    private final Sink sink;
    private int trainable;
    private long lastArrivalNanos;

    BatchAssembler(final TrainerConfig config, final TrainingWindow window, final Sink sink) {
        this.config = config;
        this.window = window;
        this.sink = sink;
    }

    /**
     * Appends a consumed record.
     *
     * @throws IllegalArgumentException when it failed for a reason that is not its own (an outage,
     *     a refusal): such a record is kept and read again, never dead-lettered
     */
    void add(final Pending pending, final long currentVersion, final long nowNanos) {
        if (pending.error() != null
                && ErrorPolicy.classify(pending.error()) != ErrorPolicy.Action.DEAD_LETTER) {
            throw new IllegalArgumentException(
                    "record "
                            + pending.record().topic()
                            + "-"
                            + pending.record().partition()
                            + "@"
                            + pending.record().offset()
                            + " failed for a reason that is not its own ("
                            + pending.error().getMessage()
                            + "); retry it instead of buffering it for the dead-letter topic");
        }
        queue.addLast(pending);
        if (verdict(pending, currentVersion) == GroupVerdict.TRAIN) {
            trainable++;
        }
        lastArrivalNanos = nowNanos;
    }

    /**
     * Passes over records at the head that will not be trained, marking them done, so the buffer
     * does not fill with them.
     */
    void dropLeading(final long currentVersion) {
        while (!queue.isEmpty()
                && verdict(queue.peekFirst(), currentVersion) != GroupVerdict.TRAIN) {
            release(queue.removeFirst(), currentVersion);
        }
    }

    /** A full batch is waiting, or a partial one has waited {@code batchTimeout} for more. */
    boolean batchReady(final long nowNanos) {
        return trainable >= config.batchSize()
                || (trainable > 0
                        && nowNanos - lastArrivalNanos >= config.batchTimeout().toNanos());
    }

    /** Buffered records (trainable or not). */
    int size() {
        return queue.size();
    }

    /**
     * Takes up to one batch of trainable groups from the head, marking every record passed over as
     * done. Staleness is checked again here: a version published while a group waited can make it
     * stale.
     */
    List<Pending> take(final long currentVersion) {
        final List<Pending> batch = new ArrayList<>(config.batchSize());
        while (!queue.isEmpty() && batch.size() < config.batchSize()) {
            takeHead(currentVersion, batch);
        }
        trainable =
                (int)
                        queue.stream()
                                .filter(p -> verdict(p, currentVersion) == GroupVerdict.TRAIN)
                                .count();
        return batch;
    }

    /**
     * Takes every buffered trainable group, marking every record done, in an order that depends on
     * the groups alone, never on the order they arrived from the partitions: by a hash of the
     * transition id salted with {@code salt} (so that one episode's steps do not share a batch),
     * then by the id and the generating version.
     */
    List<Pending> takeAll(final long currentVersion, final long salt) {
        final List<Pending> batch = new ArrayList<>(queue.size());
        while (!queue.isEmpty()) {
            takeHead(currentVersion, batch);
        }
        trainable = 0;
        batch.sort(
                Comparator.comparingLong((Pending p) -> mix(p.group().getTransitionId(), salt))
                        .thenComparing(p -> p.group().getTransitionId())
                        .thenComparingLong(p -> p.group().getModelVersion()));
        return batch;
    }

    /** A 64-bit hash of {@code id} salted with {@code salt} (SplitMix64's finaliser). */
    private static long mix(final String id, final long salt) {
        long z = id.hashCode() * 0x9E3779B97F4A7C15L + salt * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Marks the head done and adds it to {@code batch} when trainable, else passes over it. */
    private void takeHead(final long currentVersion, final List<Pending> batch) {
        final Pending p = queue.removeFirst();
        if (verdict(p, currentVersion) == GroupVerdict.TRAIN) {
            window.processed(p.partition(), p.record().offset());
            batch.add(p);
        } else {
            release(p, currentVersion);
        }
    }

    private void release(final Pending p, final long currentVersion) {
        window.processed(p.partition(), p.record().offset());
        if (p.group() == null) {
            sink.deadLetter(p);
        } else {
            sink.dropped(p, verdict(p, currentVersion));
        }
    }

    private GroupVerdict verdict(final Pending p, final long currentVersion) {
        if (p.group() == null) {
            return GroupVerdict.NOT_KEPT;
        }
        return GroupVerdict.of(
                p.group(), currentVersion, config.stalenessBound(), config.objective());
    }
}
