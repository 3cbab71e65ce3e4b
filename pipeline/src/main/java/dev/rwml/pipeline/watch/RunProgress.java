package dev.rwml.pipeline.watch;

import dev.rwml.events.Difficulty;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's progress as its topics record it, read on from where the previous call stopped: the
 * versions on {@code rwml.<run>.models}, the rewarded groups on {@code rwml.<run>.rewards} (pass
 * rate per behaviour version), the filter's verdicts on {@code rwml.<run>.difficulty}, and the
 * records committed to any topic asked about. It reads read_committed, so it sees what the stages
 * wrote for good. Thread-safe.
 */
public final class RunProgress implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RunProgress.class);

    /**
     * What the filter stage judged: its verdicts on {@code rwml.<run>.difficulty}.
     *
     * @param judged transitions judged
     * @param easy judged easy (kept or not)
     * @param kept passed on to the curriculum
     */
    public record FilterCounts(long judged, long easy, long kept) {

        /** The fraction judged easy, 0 before any verdict. */
        public double easyFraction() {
            return judged == 0 ? 0 : (double) easy / judged;
        }
    }

    /**
     * Pass rate of the groups one model version generated.
     *
     * @param groups rewarded groups
     * @param passRateSum their pass rates added up
     * @param kept groups kept for training
     * @param easy groups the too-easy filter judged easy (kept or not)
     * @param firstGeneratedAt when the earliest of them was generated: the version's first
     *     prediction
     */
    public record PassRate(
            long groups, double passRateSum, long kept, long easy, Instant firstGeneratedAt) {

        /** The mean pass rate, 0 without groups. */
        public double mean() {
            return groups == 0 ? 0 : passRateSum / groups;
        }

        PassRate plus(final PassRate other) {
            return new PassRate(
                    groups + other.groups,
                    passRateSum + other.passRateSum,
                    kept + other.kept,
                    easy + other.easy,
                    firstGeneratedAt.isBefore(other.firstGeneratedAt)
                            ? firstGeneratedAt
                            : other.firstGeneratedAt);
        }
    }

    /**
     * The progress read so far.
     *
     * @param versions committed versions by number
     * @param passRates pass rate by the behaviour version that generated the groups
     * @param committedRecords records read so far (read_committed) per topic read
     * @param filter the filter stage's verdicts so far
     */
    public record Snapshot(
            SortedMap<Long, ModelVersion> versions,
            SortedMap<Long, PassRate> passRates,
            Map<String, Long> committedRecords,
            FilterCounts filter) {

        /** Copies everything. */
        public Snapshot {
            versions = Collections.unmodifiableSortedMap(new TreeMap<>(versions));
            passRates = Collections.unmodifiableSortedMap(new TreeMap<>(passRates));
            committedRecords = Collections.unmodifiableMap(new LinkedHashMap<>(committedRecords));
        }
    }

    private final String run;
    private final Connection connection;
    private final RunTopics topics;
    private final EventSerde<ModelVersion> versionSerde;
    private final EventSerde<RewardedGroup> rewardSerde;
    private final EventSerde<TransitionDifficulty> difficultySerde;
    private long judged;
    private long judgedEasy;
    private long judgedKept;
    private final List<Double> judgedMaxSimilarity = new ArrayList<>();
    private final Map<String, TopicTail> tails = new LinkedHashMap<>();
    private final TreeMap<Long, ModelVersion> versions = new TreeMap<>();
    private final TreeMap<Long, PassRate> passRates = new TreeMap<>();

    /** A reader of {@code run}'s progress; it opens no consumer before the first read. */
    public RunProgress(final String run, final Connection connection) {
        this.run = run;
        this.connection = connection;
        this.topics = TopicCatalog.defaults().run(run);
        this.versionSerde = topics.models().valueSerde(connection.registryConfig());
        this.rewardSerde = topics.rewards().valueSerde(connection.registryConfig());
        this.difficultySerde = topics.difficulty().valueSerde(connection.registryConfig());
    }

    /**
     * Reads the versions, rewarded groups and verdicts committed since the last call, of those of
     * their topics in {@code existing}, and on every topic {@link #committedRecords} counts (each
     * for at most ten seconds, the rest is read by the next call).
     */
    public synchronized Snapshot readOn(final Set<String> existing) {
        for (final String topic :
                List.of(
                        topics.models().name(),
                        topics.rewards().name(),
                        topics.difficulty().name())) {
            if (existing.contains(topic)) {
                tail(topic);
            }
        }
        // The tails opened by committedRecords are read on as well, so their counts stay fresh.
        tails.values().forEach(TopicTail::catchUp);
        final Map<String, Long> records = new LinkedHashMap<>();
        tails.forEach((topic, tail) -> records.put(topic, tail.records()));
        return new Snapshot(
                versions, passRates, records, new FilterCounts(judged, judgedEasy, judgedKept));
    }

    /**
     * The records committed to {@code topic} (read_committed, from its beginning), after reading
     * what arrived since the last call: what the stages wrote for good, not what their meters saw.
     */
    public synchronized long committedRecords(final String topic) {
        final TopicTail tail = tail(topic);
        if (tail == null) {
            return 0;
        }
        tail.catchUp();
        return tail.records();
    }

    /** The tail of {@code topic}, opened on first use; null while the topic has no partitions. */
    private TopicTail tail(final String topic) {
        TopicTail tail = tails.get(topic);
        if (tail == null) {
            final Consumer<ConsumerRecord<byte[], byte[]>> handler =
                    topic.equals(topics.models().name())
                            ? this::onVersion
                            : topic.equals(topics.rewards().name())
                                    ? this::onReward
                                    : topic.equals(topics.difficulty().name())
                                            ? this::onVerdict
                                            : r -> {};
            // One client id per topic, so the consumers' metrics do not collide in one JVM.
            tail =
                    TopicTail.open(
                            connection.readCommittedConsumer("rwml-observe-" + run + "-" + topic),
                            topic,
                            handler);
            if (tail != null) {
                tails.put(topic, tail);
            }
        }
        return tail;
    }

    private void onVersion(final ConsumerRecord<byte[], byte[]> r) {
        try {
            final ModelVersion v = versionSerde.deserializer().deserialize(r.topic(), r.value());
            versions.put(v.getVersion(), v);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Skipping undecodable manifest at {}-{}@{}: {}",
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    e.toString());
        }
    }

    private void onReward(final ConsumerRecord<byte[], byte[]> r) {
        try {
            final RewardedGroup g = rewardSerde.deserializer().deserialize(r.topic(), r.value());
            passRates.merge(
                    g.getModelVersion(),
                    new PassRate(
                            1,
                            g.getStats().getPassRate(),
                            g.getKept() ? 1 : 0,
                            g.getDifficulty() == Difficulty.EASY ? 1 : 0,
                            g.getGeneratedAt()),
                    PassRate::plus);
        } catch (RuntimeException e) {
            LOG.debug(
                    "Skipping undecodable rewarded group at {}-{}@{}",
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    e);
        }
    }

    private void onVerdict(final ConsumerRecord<byte[], byte[]> r) {
        try {
            final TransitionDifficulty v =
                    difficultySerde.deserializer().deserialize(r.topic(), r.value());
            judged++;
            judgedEasy += v.getDifficulty() == Difficulty.EASY ? 1 : 0;
            judgedKept += v.getKept() ? 1 : 0;
            judgedMaxSimilarity.add(v.getMaxSimilarity());
        } catch (RuntimeException e) {
            LOG.debug(
                    "Skipping undecodable verdict at {}-{}@{}",
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    e);
        }
    }

    /**
     * The data-stage threshold at which {@code easyFraction} of the verdicts read so far would be
     * easy under the one-pass rule (a transition is easy when its best try exceeds the threshold):
     * the {@code 1 - easyFraction} quantile of the best tries' similarities; NaN before any
     * verdict.
     */
    public synchronized double thresholdForEasyFraction(final double easyFraction) {
        if (judgedMaxSimilarity.isEmpty()) {
            return Double.NaN;
        }
        final List<Double> sorted = new ArrayList<>(judgedMaxSimilarity);
        Collections.sort(sorted);
        final int index = (int) Math.floor((1 - easyFraction) * (sorted.size() - 1));
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    @Override
    public synchronized void close() {
        tails.values().forEach(TopicTail::close);
        tails.clear();
        versionSerde.close();
        rewardSerde.close();
        difficultySerde.close();
    }
}
