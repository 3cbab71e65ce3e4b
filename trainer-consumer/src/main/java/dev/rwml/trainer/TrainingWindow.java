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
 *
 * <p>Records passed over without a step (skipped groups, dead letters) may be committed before the
 * next version ({@link #offsetsToCommitWithoutVersion}) so the trainer's lag does not grow while
 * nothing trains. Such a commit keeps the window open: the skipped ranges stay in the next
 * version's lineage and counters, and the commit's offset metadata records where that lineage
 * starts and what was skipped, so a restart in between ({@link #restore}) still publishes a lineage
 * contiguous with the parent's.
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
    private long uncommitted;
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
        uncommitted++;
    }

    /**
     * Records marked done, and frontier moves past transaction markers, since the last commit (with
     * or without a version).
     */
    long uncommitted() {
        return uncommitted;
    }

    /**
     * Moves the frontier of {@code tp} to {@code position} (the consumer's next offset), so offsets
     * with no record (transaction markers) at the end of a read are covered too.
     */
    void advanceTo(final TopicPartition tp, final long position) {
        from.putIfAbsent(tp, position);
        final Long frontier = until.get(tp);
        if (frontier == null || position > frontier) {
            until.put(tp, position);
            uncommitted++;
        }
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

    /**
     * The offsets to commit while no step was taken since the last version: the frontier, each with
     * metadata naming {@code parentVersion}, where the next version's lineage starts on that
     * partition and the groups skipped so far. Only skipped and dead-lettered records lie behind
     * the frontier, so committing it loses no training; the window stays open.
     *
     * @throws IllegalStateException when a step was taken: those groups commit with their version
     */
    Map<TopicPartition, OffsetAndMetadata> offsetsToCommitWithoutVersion(final long parentVersion) {
        if (steps > 0) {
            throw new IllegalStateException(
                    "groups trained since version "
                            + parentVersion
                            + " are committed only with the version that holds them");
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        until.forEach(
                (tp, off) ->
                        offsets.put(
                                tp,
                                new OffsetAndMetadata(
                                        off,
                                        new Carryover(
                                                        parentVersion,
                                                        from.getOrDefault(tp, off),
                                                        droppedStale,
                                                        skippedZeroAdvantage,
                                                        skippedNotKept)
                                                .encode())));
        return offsets;
    }

    /** The offsets from {@link #offsetsToCommitWithoutVersion} were committed. */
    void committedWithoutVersion() {
        uncommitted = 0;
    }

    /**
     * After {@link #start}, takes back what an offsets-only commit after {@code version} left in
     * the committed offsets' metadata: the lineage start of each partition and the skip counters.
     * Metadata of another version, of a version's own commit (empty) or unreadable is ignored.
     *
     * @return whether anything was restored
     */
    boolean restore(final Map<TopicPartition, String> metadata, final long version) {
        boolean restored = false;
        for (final Map.Entry<TopicPartition, String> e : metadata.entrySet()) {
            final Carryover c = Carryover.parse(e.getValue());
            final Long position = until.get(e.getKey());
            if (c == null || c.parentVersion() != version || position == null) {
                continue;
            }
            from.put(e.getKey(), Math.min(c.lineageFrom(), position));
            if (!restored) {
                // Every partition of one commit carries the same counters: take them once.
                droppedStale = c.droppedStale();
                skippedZeroAdvantage = c.skippedZeroAdvantage();
                skippedNotKept = c.skippedNotKept();
                restored = true;
            }
        }
        return restored;
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
        uncommitted = 0;
        rewardSum = 0;
        passRateSum = 0;
        lossSum = 0;
        klSum = 0;
        clipSum = 0;
        gradNormSum = 0;
    }

    /**
     * What an offsets-only commit hands to the next version, as committed offset metadata: {@code
     * rwml-trainer/1 parent=3 lineageFrom=10 droppedStale=0 skippedZeroAdvantage=2
     * skippedNotKept=1}.
     */
    record Carryover(
            long parentVersion,
            long lineageFrom,
            long droppedStale,
            long skippedZeroAdvantage,
            long skippedNotKept) {

        private static final String TAG = "rwml-trainer/1";

        String encode() {
            return TAG
                    + " parent="
                    + parentVersion
                    + " lineageFrom="
                    + lineageFrom
                    + " droppedStale="
                    + droppedStale
                    + " skippedZeroAdvantage="
                    + skippedZeroAdvantage
                    + " skippedNotKept="
                    + skippedNotKept;
        }

        /** The carryover in {@code metadata}, or null when it holds none. */
        static Carryover parse(final String metadata) {
            if (metadata == null || !metadata.startsWith(TAG + " ")) {
                return null;
            }
            final Map<String, Long> fields = new LinkedHashMap<>();
            for (final String part : metadata.substring(TAG.length()).trim().split(" +")) {
                final int eq = part.indexOf('=');
                if (eq < 1) {
                    return null;
                }
                try {
                    fields.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
                } catch (final NumberFormatException e) {
                    return null;
                }
            }
            if (!fields.containsKey("parent") || !fields.containsKey("lineageFrom")) {
                return null;
            }
            return new Carryover(
                    fields.get("parent"),
                    fields.get("lineageFrom"),
                    fields.getOrDefault("droppedStale", 0L),
                    fields.getOrDefault("skippedZeroAdvantage", 0L),
                    fields.getOrDefault("skippedNotKept", 0L));
        }
    }
}
