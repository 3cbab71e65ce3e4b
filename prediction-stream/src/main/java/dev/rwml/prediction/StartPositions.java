package dev.rwml.prediction;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link StartPosition.Kind#TIMESTAMP} or {@link StartPosition.Kind#LATEST} start before
 * the streams start: when the run's group has no committed offset on the transitions topic yet, it
 * commits, for each partition, the offset of the first record at or after the time, or the end
 * offset for {@code latest} (and for a time after every record). A group that already committed
 * keeps its offsets, so a restart never re-reads or skips.
 *
 * <p>Seeking the offsets rather than filtering by eventTime means records before the time are not
 * even fetched, and the start is exact whatever the event times say. Committing {@code latest}
 * rather than leaving it to the consumer's offset reset fixes the start when the stage starts, not
 * at its first poll after the group's first rebalance (transitions produced in between were
 * skipped), keeps it when the stage stops before any transition arrived (a restart used to skip
 * what came meanwhile), and shows the group's lag as 0 from the start.
 */
final class StartPositions {

    private static final Logger LOG = LoggerFactory.getLogger(StartPositions.class);

    private StartPositions() {}

    /** Commits the start offsets for {@code groupId} if it has none; returns what it committed. */
    static Map<TopicPartition, Long> seekIfNew(
            final Admin admin,
            final String groupId,
            final String topic,
            final StartPosition position,
            final Duration timeout) {
        if (position.kind() == StartPosition.Kind.EARLIEST) {
            return Map.of();
        }
        try {
            final Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(groupId)
                            .partitionsToOffsetAndMetadata()
                            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            final boolean hasOffsets =
                    committed.entrySet().stream()
                            .anyMatch(
                                    e -> e.getKey().topic().equals(topic) && e.getValue() != null);
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
            final Map<TopicPartition, OffsetSpec> atTime = new HashMap<>();
            final Map<TopicPartition, OffsetSpec> atEnd = new HashMap<>();
            for (final TopicPartitionInfo p : partitions) {
                final TopicPartition tp = new TopicPartition(topic, p.partition());
                atTime.put(
                        tp,
                        position.kind() == StartPosition.Kind.LATEST
                                ? OffsetSpec.latest()
                                : OffsetSpec.forTimestamp(position.timestamp().toEpochMilli()));
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
                // -1: no record at or after the time yet, so start after everything present.
                final long chosen = offset >= 0 ? offset : ends.get(tp).offset();
                start.put(tp, new OffsetAndMetadata(chosen));
                result.put(tp, chosen);
            }
            try {
                admin.alterConsumerGroupOffsets(groupId, start)
                        .all()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupNotEmptyException)) {
                    throw e;
                }
                // Another instance of the stage set the start a moment ago and joined.
                LOG.info(
                        "Group {} already has active members; they set where {} starts",
                        groupId,
                        topic);
                return Map.of();
            }
            LOG.info("Group {} starts {} at {}: offsets {}", groupId, topic, position, result);
            return result;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot set the start offsets of group "
                            + groupId
                            + " on "
                            + topic
                            + " for start.from="
                            + position
                            + ": "
                            + e.getMessage()
                            + "; check the broker is reachable and the topic exists",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while setting start offsets", e);
        }
    }
}
