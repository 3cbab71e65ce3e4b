package dev.rwml.runtime.start;

import dev.rwml.events.OffsetRange;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link StartPosition.Kind#AFTER_BASE}, {@link StartPosition.Kind#TIMESTAMP} or {@link
 * StartPosition.Kind#LATEST} start before the streams start: when the run's group has no committed
 * offset on the transitions topic yet, it commits, for each partition, the end of version 0's
 * lineage there (the beginning of a partition outside it), the offset of the first record at or
 * after the time, or the end offset for {@code latest} (and for a time after every record); never
 * past the end or before the beginning of the partition. A group that already committed keeps its
 * offsets, so a restart never re-reads or skips.
 *
 * <p>Seeking the offsets rather than filtering by eventTime means records before the time are not
 * even fetched, and the start is exact whatever the event times say. Committing {@code latest}
 * rather than leaving it to the consumer's offset reset fixes the start when the stage starts, not
 * at its first poll after the group's first rebalance (transitions produced in between were
 * skipped), keeps it when the stage stops before any transition arrived (a restart used to skip
 * what came meanwhile), and shows the group's lag as 0 from the start.
 */
public final class StartPositions {

    private static final Logger LOG = LoggerFactory.getLogger(StartPositions.class);
    private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    private StartPositions() {}

    /**
     * Per partition of {@code topic}, the end of what {@code lineage} covers: the largest {@code
     * untilOffset} of its ranges there.
     */
    public static Map<Integer, Long> lineageEnds(
            final List<OffsetRange> lineage, final String topic) {
        final Map<Integer, Long> ends = new TreeMap<>();
        for (final OffsetRange r : lineage) {
            if (r.getTopic().equals(topic)) {
                ends.merge(r.getPartition(), r.getUntilOffset(), Math::max);
            }
        }
        return ends;
    }

    /**
     * Commits the start offsets for {@code groupId} if it has none; returns what it committed. An
     * unreachable broker (a timeout, a retriable error) is retried for {@code patience}, as the
     * stages ride out an outage, before the stage is told it cannot start.
     *
     * @param baseLineage version 0's lineage, read only for {@code after-base} and a new group
     * @param timeout the longest one admin call may take
     * @param patience how long to keep retrying while the broker is unreachable
     */
    public static Map<TopicPartition, Long> seekIfNew(
            final Admin admin,
            final String groupId,
            final String topic,
            final StartPosition position,
            final Supplier<List<OffsetRange>> baseLineage,
            final Duration timeout,
            final Duration patience) {
        if (position.kind() == StartPosition.Kind.EARLIEST) {
            return Map.of();
        }
        final long deadline = System.nanoTime() + patience.toNanos();
        try {
            while (true) {
                try {
                    return seek(admin, groupId, topic, position, baseLineage, timeout);
                } catch (final TimeoutException | ExecutionException e) {
                    final boolean retriable =
                            e instanceof TimeoutException
                                    || e.getCause() instanceof RetriableException;
                    if (!retriable || System.nanoTime() >= deadline) {
                        throw new IllegalStateException(
                                "cannot set the start offsets of group "
                                        + groupId
                                        + " on "
                                        + topic
                                        + " for start.from="
                                        + position
                                        + ": "
                                        + e
                                        + "; check the broker is reachable and the topic exists",
                                e);
                    }
                    LOG.warn(
                            "Cannot set the start offsets of group {} on {} yet ({}); retrying",
                            groupId,
                            topic,
                            e.toString());
                }
                Thread.sleep(RETRY_PAUSE.toMillis());
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while setting start offsets", e);
        }
    }

    private static Map<TopicPartition, Long> seek(
            final Admin admin,
            final String groupId,
            final String topic,
            final StartPosition position,
            final Supplier<List<OffsetRange>> baseLineage,
            final Duration timeout)
            throws ExecutionException, TimeoutException, InterruptedException {
        final Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets(groupId)
                        .partitionsToOffsetAndMetadata()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        final boolean hasOffsets =
                committed.entrySet().stream()
                        .anyMatch(e -> e.getKey().topic().equals(topic) && e.getValue() != null);
        if (hasOffsets) {
            LOG.info(
                    "Group {} already has committed offsets on {}; start.from={} is ignored and"
                            + " the run continues where it stopped",
                    groupId,
                    topic,
                    position);
            return Map.of();
        }
        final List<TopicPartitionInfo> partitions =
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(topic)
                        .partitions();
        final Map<Integer, Long> baseEnds =
                position.kind() == StartPosition.Kind.AFTER_BASE
                        ? lineageEnds(baseLineage.get(), topic)
                        : Map.of();
        final Map<TopicPartition, OffsetSpec> atTime = new HashMap<>();
        final Map<TopicPartition, OffsetSpec> atEnd = new HashMap<>();
        for (final TopicPartitionInfo p : partitions) {
            final TopicPartition tp = new TopicPartition(topic, p.partition());
            atTime.put(tp, spec(position));
            atEnd.put(tp, OffsetSpec.latest());
        }
        final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> found =
                admin.listOffsets(atTime).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(atEnd).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        final Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        final Map<TopicPartition, Long> result = new HashMap<>();
        for (final TopicPartition tp : atTime.keySet()) {
            final long offset = found.get(tp).offset();
            final long end = ends.get(tp).offset();
            final long chosen;
            if (position.kind() == StartPosition.Kind.AFTER_BASE) {
                // found is the partition's beginning here; retention may have passed the
                // lineage's end, and the end can never lie beyond the log's.
                chosen = Math.min(end, Math.max(offset, baseEnds.getOrDefault(tp.partition(), 0L)));
            } else {
                // -1: no record at or after the time yet, so start after everything present.
                chosen = offset >= 0 ? offset : end;
            }
            start.put(tp, new OffsetAndMetadata(chosen));
            result.put(tp, chosen);
        }
        try {
            admin.alterConsumerGroupOffsets(groupId, start)
                    .all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // The broker answers GROUP_NOT_EMPTY or, for a member it does not know,
            // UNKNOWN_MEMBER_ID
            if (!(e.getCause() instanceof GroupNotEmptyException
                    || e.getCause() instanceof UnknownMemberIdException)) {
                throw e;
            }
            // Another instance of the stage set the start a moment ago and joined (two instances
            // started together both found the group new: ChaosIT's scale-out test met this).
            LOG.info(
                    "Group {} already has active members; they set where {} starts",
                    groupId,
                    topic);
            return Map.of();
        }
        LOG.info("Group {} starts {} at {}: offsets {}", groupId, topic, position, result);
        return result;
    }

    private static OffsetSpec spec(final StartPosition position) {
        switch (position.kind()) {
            case LATEST:
                return OffsetSpec.latest();
            case TIMESTAMP:
                return OffsetSpec.forTimestamp(position.timestamp().toEpochMilli());
            default:
                return OffsetSpec.earliest();
        }
    }
}
