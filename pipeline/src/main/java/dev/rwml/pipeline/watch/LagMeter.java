package dev.rwml.pipeline.watch;

import dev.rwml.pipeline.deadletters.DeadLetterStore;
import dev.rwml.pipeline.watch.RunStatus.StageLag;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets of a run's topics and the lag of each stage: its consumer group's committed offsets
 * against the ends of the topics the stage reads ({@link StageName#inputTopics}).
 *
 * <p>Every stage reads its inputs read_committed (Streams under exactly_once_v2, the trainer's
 * consumer), so the end a group is measured against is the last stable offset: records of a
 * transaction still open are not lag yet. Thread-safe.
 */
public final class LagMeter implements AutoCloseable {

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(15);

    /** The order {@code rwml status} lists the stages in: the pipeline's. */
    private static final List<StageName> PIPELINE =
            List.of(StageName.FILTER, StageName.PREDICTION, StageName.REWARD, StageName.TRAINER);

    /**
     * One stage's consumer group and the topics it reads.
     *
     * @param name the stage
     * @param groupId its consumer group or Streams application id
     * @param inputTopics the topics whose ends the group is measured against, main input first
     */
    public record Stage(StageName name, String groupId, List<String> inputTopics) {

        /** Copies the topics. */
        public Stage {
            inputTopics = List.copyOf(inputTopics);
        }

        /** The stages of {@code run} with their default group ids ({@code rwml-<run>-<stage>}). */
        public static List<Stage> defaults(final String run) {
            final RunTopics topics = TopicCatalog.defaults().run(run);
            return PIPELINE.stream()
                    .map(name -> new Stage(name, name.groupId(run), name.inputTopics(topics)))
                    .toList();
        }

        /** This stage under another group id (a stage started with its own application.id). */
        public Stage withGroupId(final String id) {
            return new Stage(name, id, inputTopics);
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
     * The offsets and lag read at one moment.
     *
     * @param topics the run's topics, pipeline order, then its dead-letter topics
     * @param stages the lag of each stage, optional stages only once their group committed
     */
    public record Reading(List<TopicOffsets> topics, List<StageLag> stages) {

        /** Copies the lists. */
        public Reading {
            topics = List.copyOf(topics);
            stages = List.copyOf(stages);
        }

        /** The topics of {@link #topics} that exist. */
        public Set<String> existing() {
            return topics.stream()
                    .filter(TopicOffsets::exists)
                    .map(TopicOffsets::topic)
                    .collect(Collectors.toUnmodifiableSet());
        }
    }

    private final String run;
    private final Connection connection;
    private final List<Stage> stages;
    private final List<String> watched;
    private final Admin admin;

    /** A meter of the given stages of {@code run} and of every topic the run has. */
    public LagMeter(final String run, final Connection connection, final List<Stage> stages) {
        this.run = run;
        this.connection = connection;
        this.stages = List.copyOf(stages);
        this.watched = watchedTopics(run, TopicCatalog.defaults().run(run));
        this.admin =
                Admin.create(
                        connection.kafkaConfig(
                                Map.of(
                                        AdminClientConfig.CLIENT_ID_CONFIG,
                                        "rwml-observe-" + run + "-admin")));
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

    /** Reads the offsets of the run's topics and the lag of every stage now. */
    public synchronized Reading read() {
        final Set<String> existing = existingTopics();
        final Map<TopicPartition, long[]> offsets = offsets(existing);
        final List<StageLag> lags = new ArrayList<>();
        for (final Stage stage : stages) {
            final StageLag lag = lag(stage, offsets);
            if (lag.started() || !stage.name().optional()) {
                lags.add(lag);
            }
        }
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
        return new Reading(sums, lags);
    }

    private Set<String> existingTopics() {
        try {
            return admin.listTopics().names().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    // The error line adds the cause and what to check.
                    "cannot list topics on " + connection.bootstrapServers(), e);
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

    /**
     * The input topics {@code stage} is measured against, given what its group committed: a stage
     * that reads one of them by its configuration is measured against the ones its group committed
     * on, the first while it committed none.
     */
    private static List<String> measured(
            final Stage stage, final Map<TopicPartition, OffsetAndMetadata> committed) {
        if (!stage.name().readsOneInput()) {
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
        admin.close(Duration.ofSeconds(5));
    }
}
