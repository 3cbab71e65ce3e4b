package dev.rwml.trainer;

import dev.rwml.events.OffsetRange;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TrainingCounters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Everything processed since the last published version: the offset frontier per input partition
 * (committed with the next version), lineage ranges, counters, metric sums and the trained
 * transition ids. Not thread-safe: the trainer loop owns it.
 */
final class TrainingWindow {

    private final Map<TopicPartition, Long> from = new LinkedHashMap<>();
    private final Map<TopicPartition, Long> until = new LinkedHashMap<>();
    private final List<String> trainedIds = new ArrayList<>();
    private final Map<Long, Long> stalenessHistogram = new TreeMap<>();
    private long steps;
    private long groups;
    private long tokens;
    private long droppedStale;
    private long skippedZeroAdvantage;
    private long skippedNotKept;
    private double rewardSum;
    private double passRateSum;
    private double lossSum;
    private double klSum;
    private double clipSum;
    private double gradNormSum;

    /** Starts the window at the positions the consumer resumes from. */
    void start(final Map<TopicPartition, Long> positions) {
        positions.forEach(
                (tp, pos) -> {
                    from.put(tp, pos);
                    until.put(tp, pos);
                });
    }

    /** Marks {@code offset} of {@code tp} as done (trained or dropped). */
    void processed(final TopicPartition tp, final long offset) {
        from.putIfAbsent(tp, offset);
        until.merge(tp, offset + 1, Math::max);
    }

    /**
     * Moves the frontier of {@code tp} to {@code position} (the consumer's next offset), so offsets
     * with no record (transaction markers) at the end of a read are covered too.
     */
    void advanceTo(final TopicPartition tp, final long position) {
        from.putIfAbsent(tp, position);
        until.merge(tp, position, Math::max);
    }

    void dropped(final GroupVerdict verdict) {
        switch (verdict) {
            case STALE -> droppedStale++;
            case ZERO_ADVANTAGE -> skippedZeroAdvantage++;
            case NOT_KEPT -> skippedNotKept++;
            case TRAIN -> throw new IllegalArgumentException("a trained group is not dropped");
        }
    }

    void trained(final RewardedGroup group, final long staleness) {
        groups++;
        trainedIds.add(group.getTransitionId());
        rewardSum += group.getStats().getMeanReward();
        passRateSum += group.getStats().getPassRate();
        stalenessHistogram.merge(Math.max(0, staleness), 1L, Long::sum);
    }

    void step(final StepStats s) {
        steps++;
        tokens += s.tokens();
        lossSum += s.loss();
        klSum += s.kl();
        clipSum += s.clipFraction();
        gradNormSum += s.gradNorm();
    }

    long steps() {
        return steps;
    }

    long groups() {
        return groups;
    }

    List<String> trainedIds() {
        return List.copyOf(trainedIds);
    }

    /** The offsets to commit with the next version: the frontier of every partition seen. */
    Map<TopicPartition, OffsetAndMetadata> offsetsToCommit() {
        final Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        until.forEach((tp, off) -> offsets.put(tp, new OffsetAndMetadata(off)));
        return offsets;
    }

    /** The [from, until) ranges of the partitions that advanced in this window. */
    List<OffsetRange> lineage() {
        final List<OffsetRange> ranges = new ArrayList<>();
        until.entrySet().stream()
                .sorted(
                        Comparator.comparing(
                                        (Map.Entry<TopicPartition, Long> e) -> e.getKey().topic())
                                .thenComparing(e -> e.getKey().partition()))
                .forEach(
                        e -> {
                            final long start = from.getOrDefault(e.getKey(), e.getValue());
                            if (e.getValue() > start) {
                                ranges.add(
                                        OffsetRange.newBuilder()
                                                .setTopic(e.getKey().topic())
                                                .setPartition(e.getKey().partition())
                                                .setFromOffset(start)
                                                .setUntilOffset(e.getValue())
                                                .build());
                            }
                        });
        return ranges;
    }

    TrainingCounters counters() {
        return TrainingCounters.newBuilder()
                .setSteps(steps)
                .setGroups(groups)
                .setTokens(tokens)
                .setDroppedStale(droppedStale)
                .setSkippedZeroAdvantage(skippedZeroAdvantage)
                .build();
    }

    Map<String, Double> metrics() {
        final Map<String, Double> m = new LinkedHashMap<>();
        if (groups > 0) {
            m.put("meanReward", rewardSum / groups);
            m.put("passRate", passRateSum / groups);
        }
        if (steps > 0) {
            m.put("loss", lossSum / steps);
            m.put("kl", klSum / steps);
            m.put("clipFraction", clipSum / steps);
            m.put("gradNorm", gradNormSum / steps);
        }
        m.put("skippedNotKept", (double) skippedNotKept);
        return m;
    }

    Map<String, Long> stalenessHistogram() {
        final Map<String, Long> h = new LinkedHashMap<>();
        stalenessHistogram.forEach((k, v) -> h.put(Long.toString(k), v));
        return h;
    }

    /** Starts the next window where this one ended (after its version was committed). */
    void reset() {
        from.clear();
        from.putAll(until);
        trainedIds.clear();
        stalenessHistogram.clear();
        steps = 0;
        groups = 0;
        tokens = 0;
        droppedStale = 0;
        skippedZeroAdvantage = 0;
        skippedNotKept = 0;
        rewardSum = 0;
        passRateSum = 0;
        lossSum = 0;
        klSum = 0;
        clipSum = 0;
        gradNormSum = 0;
    }
}
