package dev.rwml.ops.cli.status;

import dev.rwml.events.Difficulty;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.ops.cli.dlq.DeadLetterStore;
import dev.rwml.ops.cli.status.RunStatus.StageLag;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reader of a run's lag and progress, watching it from the outside as any tool would; used
 * by {@code rwml status}, the demo's progress and {@code rwml replay}. It measures each stage's
 * consumer group against the end of its input topics, and reads the versions on {@code
 * rwml.<run>.models} and the rewarded groups on {@code rwml.<run>.rewards} (pass rate per behaviour
 * version), reading on from where the previous {@link #observe} stopped.
 *
 * <p>Every stage reads its inputs read_committed (Streams under exactly_once_v2, the trainer's
 * consumer), so the end a group is measured against is the last stable offset: records of a
 * transaction still open are not lag yet. The observer's own consumers read read_committed too, so
 * it sees what the stages wrote for good. Thread-safe.
 */
public final class RunObserver implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RunObserver.class);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration CATCH_UP = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(200);

    /**
     * One stage's consumer group and the topics it reads.
     *
     * @param name the stage
     * @param groupId its consumer group or Streams application id
     * @param inputTopics the topics whose ends the group is measured against, main input first
     * @param readsOneInput the stage reads one of {@code inputTopics}, set by its configuration
     *     (the prediction stage: transitions, or the filter's curriculum): measured against the
     *     ones its group committed on, the first while it committed none
     * @param optional a stage a run may not use (the filter): left out until its group commits
     */
    public record Stage(
            StageName name,
            String groupId,
            List<String> inputTopics,
            boolean readsOneInput,
            boolean optional) {

        /** Copies the topics. */
        public Stage {
            inputTopics = List.copyOf(inputTopics);
        }

        /** The stages of {@code run} with their default group ids ({@code rwml-<run>-<stage>}). */
        public static List<Stage> defaults(final String run) {
            final RunTopics topics = TopicCatalog.defaults().run(run);
            return List.of(
                    new Stage(
                            StageName.FILTER,
                            StageName.FILTER.groupId(run),
                            List.of(TopicCatalog.TRANSITIONS),
                            false,
                            true),
                    new Stage(
                            StageName.PREDICTION,
                            StageName.PREDICTION.groupId(run),
                            List.of(TopicCatalog.TRANSITIONS, topics.curriculum().name()),
                            true,
                            false),
                    // The join reads both; either side falling behind holds groups back.
                    of(
                            run,
                            StageName.REWARD,
                            topics.predictions().name(),
                            TopicCatalog.TRANSITIONS),
                    of(run, StageName.TRAINER, topics.rewards().name()));
        }

        private static Stage of(final String run, final StageName name, final String... inputs) {
            return new Stage(name, name.groupId(run), List.of(inputs), false, false);
        }

        /** This stage under another group id (a stage started with its own application.id). */
        public Stage withGroupId(final String id) {
            return new Stage(name, id, inputTopics, readsOneInput, optional);
        }
    }

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
     * Offsets of one topic, summed over its partitions.
     *
     * @param topic the topic
     * @param exists whether the topic exists
     * @param start the log start offsets
     * @param end the last stable offsets (the end a read_committed consumer reaches)
     */
    public record TopicOffsets(String topic, boolean exists, long start, long end) {

        /** Offsets held: records plus transaction markers. */
        public long records() {
            return end - start;
        }
    }

    /**
     * What is known about the run at one moment.
     *
     * @param at when the offsets were read
     * @param topics the run's topics, pipeline order, then its dead-letter topics
     * @param stages the lag of each stage
     * @param versions committed versions by number
     * @param passRates pass rate by the behaviour version that generated the groups
     * @param committedRecords records read so far (read_committed) per topic read
     * @param filter the filter stage's verdicts so far
     */
    public record Observation(
            Instant at,
            List<TopicOffsets> topics,
            List<StageLag> stages,
            SortedMap<Long, ModelVersion> versions,
            SortedMap<Long, PassRate> passRates,
            Map<String, Long> committedRecords,
            FilterCounts filter) {

        /** Copies everything. */
        public Observation {
            topics = List.copyOf(topics);
            stages = List.copyOf(stages);
            versions = Collections.unmodifiableSortedMap(new TreeMap<>(versions));
            passRates = Collections.unmodifiableSortedMap(new TreeMap<>(passRates));
            committedRecords = Map.copyOf(committedRecords);
        }

        /** The offsets of {@code topic}, which must be one of {@link #topics}. */
        public TopicOffsets topic(final String topic) {
            return topics.stream()
                    .filter(t -> t.topic().equals(topic))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(topic + " is not observed"));
        }

        /** Each stage's lag summed over its inputs, by stage id, in pipeline order. */
        public Map<String, Long> lagByStage() {
            final Map<String, Long> lag = new LinkedHashMap<>();
            stages.forEach(s -> lag.put(s.stage(), s.lag()));
            return lag;
        }
    }

    private final String run;
    private final Connection connection;
    private final RunTopics topics;
    private final List<Stage> stages;
    private final List<String> watched;
    private final Admin admin;
    private final EventSerde<ModelVersion> versionSerde;
    private final EventSerde<RewardedGroup> rewardSerde;
    private final EventSerde<TransitionDifficulty> difficultySerde;
    private long judged;
    private long judgedEasy;
    private long judgedKept;
    private final Map<String, TopicTail> tails = new LinkedHashMap<>();
    private final TreeMap<Long, ModelVersion> versions = new TreeMap<>();
    private final TreeMap<Long, PassRate> passRates = new TreeMap<>();

    /** An observer of {@code run}'s stages with their default group ids. */
    public RunObserver(final String run, final Connection connection) {
        this(run, connection, Stage.defaults(run));
    }

    /** An observer measuring the given stages (for stages started with other group ids). */
    public RunObserver(final String run, final Connection connection, final List<Stage> stages) {
        this.run = run;
        this.connection = connection;
        this.topics = TopicCatalog.defaults().run(run);
        this.stages = List.copyOf(stages);
        this.watched = watchedTopics(run, topics);
        this.admin =
                Admin.create(
                        connection.kafkaConfig(
                                Map.of(AdminClientConfig.CLIENT_ID_CONFIG, clientId("admin"))));
        this.versionSerde = topics.models().valueSerde(connection.registryConfig());
        this.rewardSerde = topics.rewards().valueSerde(connection.registryConfig());
        this.difficultySerde = topics.difficulty().valueSerde(connection.registryConfig());
    }

    private static List<String> watchedTopics(final String run, final RunTopics topics) {
        final List<String> watched = new ArrayList<>();
        watched.add(TopicCatalog.TRANSITIONS);
        watched.add(topics.difficulty().name());
        watched.add(topics.curriculum().name());
        watched.add(topics.predictions().name());
        watched.add(topics.rewards().name());
        watched.add(topics.models().name());
        watched.add(DeadLetterStore.topicOf(run));
        return List.copyOf(watched);
    }

    /** The run observed. */
    public String run() {
        return run;
    }

    /** The stages measured. */
    public List<Stage> stages() {
        return stages;
    }

    /**
     * Reads offsets and lag now, and the versions and rewarded groups committed since the last call
     * (for at most ten seconds, the rest is read by the next call).
     */
    public synchronized Observation observe() {
        final Instant now = Instant.now();
        final Set<String> existing = existingTopics();
        final Map<TopicPartition, long[]> offsets = offsets(existing);
        final List<StageLag> lags = new ArrayList<>();
        for (final Stage stage : stages) {
            final StageLag lag = lag(stage, offsets);
            if (lag.started() || !stage.optional()) {
                lags.add(lag);
            }
        }
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
        final List<TopicOffsets> sums = new ArrayList<>();
        for (final String topic : watched) {
            long start = 0;
            long end = 0;
            for (final Map.Entry<TopicPartition, long[]> e : offsets.entrySet()) {
                if (e.getKey().topic().equals(topic)) {
                    start += e.getValue()[0];
                    end += e.getValue()[1];
                }
            }
            sums.add(new TopicOffsets(topic, existing.contains(topic), start, end));
        }
        final Map<String, Long> records = new LinkedHashMap<>();
        tails.forEach((topic, tail) -> records.put(topic, tail.records));
        return new Observation(
                now,
                sums,
                lags,
                versions,
                passRates,
                records,
                new FilterCounts(judged, judgedEasy, judgedKept));
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
        return tail.records;
    }

    private Set<String> existingTopics() {
        try {
            return admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot list topics on "
                            + connection.bootstrapServers()
                            + " ("
                            + e.getMessage()
                            + "); check --bootstrap-servers and that the cluster is up",
                    e);
        }
    }

    /** Log start and last stable offsets ({@code [start, end]}) of the watched partitions. */
    private Map<TopicPartition, long[]> offsets(final Set<String> existing) {
        final List<String> present = watched.stream().filter(existing::contains).toList();
        if (present.isEmpty()) {
            return Map.of();
        }
        final Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        await(admin.describeTopics(present).allTopicNames())
                .forEach(
                        (topic, description) ->
                                description
                                        .partitions()
                                        .forEach(
                                                p -> {
                                                    final TopicPartition tp =
                                                            new TopicPartition(
                                                                    topic, p.partition());
                                                    earliest.put(tp, OffsetSpec.earliest());
                                                    latest.put(tp, OffsetSpec.latest());
                                                }));
        final ListOffsetsOptions committed = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED);
        final Map<TopicPartition, ListOffsetsResultInfo> starts =
                await(admin.listOffsets(earliest, committed).all());
        final Map<TopicPartition, ListOffsetsResultInfo> ends =
                await(admin.listOffsets(latest, committed).all());
        final Map<TopicPartition, long[]> result = new HashMap<>();
        ends.forEach(
                (tp, info) -> result.put(tp, new long[] {starts.get(tp).offset(), info.offset()}));
        return result;
    }

    private StageLag lag(final Stage stage, final Map<TopicPartition, long[]> offsets) {
        final Map<TopicPartition, OffsetAndMetadata> committed =
                await(
                        admin.listConsumerGroupOffsets(stage.groupId())
                                .partitionsToOffsetAndMetadata());
        final Map<String, Long> byTopic = new LinkedHashMap<>();
        for (final String topic : measured(stage, committed)) {
            long behind = 0;
            for (final Map.Entry<TopicPartition, long[]> e : offsets.entrySet()) {
                if (!e.getKey().topic().equals(topic)) {
                    continue;
                }
                final OffsetAndMetadata c = committed.get(e.getKey());
                // A group that never committed starts at the log start (start.from=earliest).
                final long position = c == null ? e.getValue()[0] : c.offset();
                behind += Math.max(0, e.getValue()[1] - position);
            }
            byTopic.put(topic, behind);
        }
        return new StageLag(stage.name().id(), stage.groupId(), byTopic, !committed.isEmpty());
    }

    /** The input topics {@code stage} is measured against, given what its group committed. */
    private static List<String> measured(
            final Stage stage, final Map<TopicPartition, OffsetAndMetadata> committed) {
        if (!stage.readsOneInput()) {
            return stage.inputTopics();
        }
        final List<String> read =
                stage.inputTopics().stream()
                        .filter(
                                t ->
                                        committed.keySet().stream()
                                                .anyMatch(tp -> tp.topic().equals(t)))
                        .toList();
        return read.isEmpty() ? stage.inputTopics().subList(0, 1) : read;
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
            tail = TopicTail.open(consumer(topic), topic, handler);
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
        } catch (RuntimeException e) {
            LOG.debug(
                    "Skipping undecodable verdict at {}-{}@{}",
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    e);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(final String topic) {
        return connection.readCommittedConsumer(clientId(topic));
    }

    /** One client id per client, so their metrics do not collide in one JVM. */
    private String clientId(final String purpose) {
        return "rwml-observe-" + run + "-" + purpose;
    }

    private <T> T await(final KafkaFuture<T> future) {
        try {
            return future.get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while observing run " + run, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "reading the status of run " + run + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        tails.values().forEach(TopicTail::close);
        tails.clear();
        versionSerde.close();
        rewardSerde.close();
        difficultySerde.close();
        admin.close(Duration.ofSeconds(5));
    }

    /** A read_committed consumer on every partition of one topic, reading from its beginning. */
    private static final class TopicTail implements AutoCloseable {

        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Consumer<ConsumerRecord<byte[], byte[]>> handler;
        private long records;

        private TopicTail(
                final KafkaConsumer<byte[], byte[]> consumer,
                final Consumer<ConsumerRecord<byte[], byte[]>> handler) {
            this.consumer = consumer;
            this.handler = handler;
        }

        /**
         * A tail of {@code topic}, or null (and the consumer closed) while it has no partitions.
         */
        static TopicTail open(
                final KafkaConsumer<byte[], byte[]> consumer,
                final String topic,
                final Consumer<ConsumerRecord<byte[], byte[]>> handler) {
            try {
                final List<TopicPartition> partitions =
                        consumer.partitionsFor(topic, ADMIN_TIMEOUT).stream()
                                .map(p -> new TopicPartition(topic, p.partition()))
                                .toList();
                if (partitions.isEmpty()) {
                    consumer.close();
                    return null;
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                return new TopicTail(consumer, handler);
            } catch (RuntimeException e) {
                consumer.close();
                throw e;
            }
        }

        /** Reads up to the ends the topic has now, for at most {@link #CATCH_UP}. */
        void catchUp() {
            final Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
            final long deadline = System.nanoTime() + CATCH_UP.toNanos();
            while (behind(ends) && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    records++;
                    if (r.value() != null) {
                        handler.accept(r);
                    }
                }
            }
        }

        private boolean behind(final Map<TopicPartition, Long> ends) {
            for (final Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                if (consumer.position(e.getKey()) < e.getValue()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
