package dev.rwml.pipeline.replay;

import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A slice of {@code rwml.transitions}: per partition, {@code [from, until)} offsets, with the
 * number of transitions in it and the oldest record time.
 *
 * @param from the first offset of each partition in the slice
 * @param until the first offset of each partition after the slice
 * @param offsets per partition, the offsets of the committed records in the slice, in order
 *     (transaction markers and aborted records excluded)
 * @param oldest the oldest record timestamp in the slice, or now when it is empty
 */
public record TransitionSlice(
        Map<Integer, Long> from,
        Map<Integer, Long> until,
        Map<Integer, List<Long>> offsets,
        Instant oldest) {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Copies the maps, sorted by partition. */
    public TransitionSlice {
        from = Map.copyOf(new TreeMap<>(from));
        until = Map.copyOf(new TreeMap<>(until));
        offsets = Map.copyOf(offsets);
    }

    /** Committed records in the slice. */
    public long transitions() {
        return offsets.values().stream().mapToLong(List::size).sum();
    }

    /** The offsets as {@code 0:120,1:98} (the prediction stage's {@code stop.at} syntax). */
    public static String text(final Map<Integer, Long> offsets) {
        final StringBuilder s = new StringBuilder();
        new TreeMap<>(offsets)
                .forEach(
                        (p, o) -> s.append(s.isEmpty() ? "" : ",").append(p).append(':').append(o));
        return s.toString();
    }

    /**
     * Resolves both bounds against {@code rwml.transitions} as it is now and counts the slice with
     * a consumer on {@code connection}.
     */
    public static TransitionSlice resolve(
            final Admin admin,
            final Connection connection,
            final SliceBound fromBound,
            final SliceBound untilBound) {
        return resolve(admin, connection, TopicCatalog.TRANSITIONS, fromBound, untilBound);
    }

    /** Resolves both bounds against {@code topic}, a log of transitions, and counts the slice. */
    public static TransitionSlice resolve(
            final Admin admin,
            final Connection connection,
            final String topic,
            final SliceBound fromBound,
            final SliceBound untilBound) {
        final List<Integer> partitions = partitions(admin, topic);
        final Map<Integer, Long> begin = list(admin, topic, partitions, OffsetSpec.earliest());
        final Map<Integer, Long> end = list(admin, topic, partitions, OffsetSpec.latest());
        final Map<Integer, Long> from = offsets(admin, topic, partitions, fromBound, begin, end);
        final Map<Integer, Long> until = offsets(admin, topic, partitions, untilBound, begin, end);
        for (final int p : partitions) {
            if (until.get(p) < from.get(p)) {
                throw new IllegalArgumentException(
                        "--until "
                                + untilBound
                                + " lies before --from "
                                + fromBound
                                + " on partition "
                                + p
                                + " ("
                                + until.get(p)
                                + " < "
                                + from.get(p)
                                + ")");
            }
        }
        return scan(connection, topic, from, until);
    }

    private static Map<Integer, Long> offsets(
            final Admin admin,
            final String topic,
            final List<Integer> partitions,
            final SliceBound bound,
            final Map<Integer, Long> begin,
            final Map<Integer, Long> end) {
        return switch (bound.kind()) {
            case EARLIEST -> begin;
            case LATEST -> end;
            case TIME -> {
                final Map<Integer, Long> at =
                        list(
                                admin,
                                topic,
                                partitions,
                                OffsetSpec.forTimestamp(bound.time().toEpochMilli()));
                final Map<Integer, Long> out = new HashMap<>();
                // -1: no record at or after the time, so the bound is the end of the partition.
                partitions.forEach(p -> out.put(p, at.get(p) < 0 ? end.get(p) : at.get(p)));
                yield out;
            }
            case OFFSETS -> {
                if (!bound.offsets().keySet().equals(Set.copyOf(partitions))) {
                    throw new IllegalArgumentException(
                            "offsets "
                                    + bound
                                    + " must name every partition of "
                                    + topic
                                    + ": "
                                    + partitions);
                }
                final Map<Integer, Long> out = new HashMap<>();
                for (final int p : partitions) {
                    final long o = bound.offsets().get(p);
                    if (o < begin.get(p) || o > end.get(p)) {
                        throw new IllegalArgumentException(
                                "offset "
                                        + o
                                        + " of partition "
                                        + p
                                        + " is outside the log ["
                                        + begin.get(p)
                                        + ", "
                                        + end.get(p)
                                        + "]");
                    }
                    out.put(p, o);
                }
                yield out;
            }
        };
    }

    private static TransitionSlice scan(
            final Connection connection,
            final String topic,
            final Map<Integer, Long> from,
            final Map<Integer, Long> until) {
        final Map<Integer, List<Long>> offsets = new TreeMap<>();
        from.keySet().forEach(p -> offsets.put(p, new ArrayList<>()));
        long oldest = Long.MAX_VALUE;
        try (KafkaConsumer<byte[], byte[]> consumer =
                connection.readCommittedConsumer("rwml-replay-slice-" + topic)) {
            final Map<TopicPartition, Long> remaining = new HashMap<>();
            from.forEach(
                    (p, o) -> {
                        if (until.get(p) > o) {
                            remaining.put(new TopicPartition(topic, p), until.get(p));
                        }
                    });
            consumer.assign(remaining.keySet());
            remaining.keySet().forEach(tp -> consumer.seek(tp, from.get(tp.partition())));
            while (!remaining.isEmpty()) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(TIMEOUT)) {
                    if (r.offset() < until.get(r.partition())) {
                        offsets.get(r.partition()).add(r.offset());
                        oldest = Math.min(oldest, r.timestamp());
                    }
                }
                remaining.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
                consumer.assign(remaining.keySet());
            }
        }
        return new TransitionSlice(
                from,
                until,
                offsets,
                oldest == Long.MAX_VALUE ? Instant.now() : Instant.ofEpochMilli(oldest));
    }

    private static List<Integer> partitions(final Admin admin, final String topic) {
        final TopicDescription d =
                get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
        return d.partitions().stream().map(p -> p.partition()).sorted().toList();
    }

    private static Map<Integer, Long> list(
            final Admin admin,
            final String topic,
            final List<Integer> partitions,
            final OffsetSpec spec) {
        final Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(new TopicPartition(topic, p), spec));
        final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> found =
                get(admin.listOffsets(request).all());
        final Map<Integer, Long> out = new HashMap<>();
        found.forEach((tp, info) -> out.put(tp.partition(), info.offset()));
        return out;
    }

    static <T> T get(final org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "the broker did not answer: "
                            + e.getMessage()
                            + "; check --bootstrap-servers and that "
                            + TopicCatalog.TRANSITIONS
                            + " exists",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the broker", e);
        }
    }
}
