package dev.rwml.ops.cli.status;

import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.ops.cli.dlq.DeadLetterEntry;
import dev.rwml.ops.cli.dlq.DeadLetterStore;
import dev.rwml.ops.cli.status.RunStatus.DeadLetterBrief;
import dev.rwml.ops.cli.status.RunStatus.DeadLetterSummary;
import dev.rwml.ops.cli.status.RunStatus.StageLag;
import dev.rwml.ops.cli.status.RunStatus.TopicRate;
import dev.rwml.ops.cli.status.RunStatus.VersionInfo;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.reward.RewardConfig;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.trainer.TrainerLoop;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a run's status from the cluster as any outside tool would: consumer-group offsets against
 * end offsets (lag), the manifests on {@code rwml.<run>.models}, the pass rates on {@code
 * rwml.<run>.rewards} (read incrementally across calls), topic growth between two calls (rates) and
 * the dead-letter topics. One instance serves repeated {@link #collect} calls (the web page polls
 * it); it is thread-safe.
 */
public final class StatusCollector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StatusCollector.class);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration CATCH_UP = Duration.ofSeconds(10);
    private static final int LATEST_DEAD_LETTERS = 5;

    /**
     * One stage's consumer group and the topics it reads.
     *
     * @param stage prediction, reward or trainer
     * @param groupId its consumer group or Streams application id
     * @param inputTopics the topics whose end offsets the group is measured against
     */
    public record Stage(String stage, String groupId, List<String> inputTopics) {
        public Stage {
            inputTopics = List.copyOf(inputTopics);
        }
    }

    private final String run;
    private final RunTopics topics;
    private final List<Stage> stages;
    private final Admin admin;
    private final String bootstrapServers;
    private final DeadLetterStore deadLetters;
    private final EventSerde<ModelVersion> versionSerde;
    private final EventSerde<RewardedGroup> rewardSerde;
    private final TreeMap<Long, ModelVersion> versions = new TreeMap<>();
    private final Map<Long, long[]> rewardedCounts = new HashMap<>();
    private final Map<Long, Double> passRateSums = new HashMap<>();
    private KafkaConsumer<byte[], byte[]> modelsConsumer;
    private KafkaConsumer<byte[], byte[]> rewardsConsumer;
    private Map<String, Long> previousEnds = Map.of();
    private long previousNanos;

    /**
     * A collector for {@code run} on the given cluster and registry, with the stages' default ids.
     */
    public StatusCollector(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        this(
                run,
                bootstrapServers,
                schemaRegistryUrl,
                stagesOf(run, bootstrapServers, schemaRegistryUrl));
    }

    /** A collector measuring the given stages (for stages started with non-default ids). */
    public StatusCollector(
            final String run,
            final String bootstrapServers,
            final String schemaRegistryUrl,
            final List<Stage> stages) {
        this.run = run;
        this.topics = TopicCatalog.defaults().run(run);
        this.stages = List.copyOf(stages);
        this.bootstrapServers = bootstrapServers;
        this.admin =
                Admin.create(
                        Map.of(
                                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                bootstrapServers,
                                AdminClientConfig.CLIENT_ID_CONFIG,
                                "rwml-status-" + run));
        final Map<String, String> registry = EventSerdes.registryConfig(schemaRegistryUrl);
        this.deadLetters = new DeadLetterStore(bootstrapServers, schemaRegistryUrl);
        this.versionSerde = topics.models().valueSerde(registry);
        this.rewardSerde = topics.rewards().valueSerde(registry);
    }

    /**
     * The groups the three stages of {@code run} use with their default settings: the prediction
     * and reward Streams application ids and the trainer's consumer group.
     */
    public static List<Stage> stagesOf(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        final RunTopics topics = TopicCatalog.defaults().run(run);
        final String prediction =
                PredictionConfig.fromMap(
                                Map.of(
                                        "run", run,
                                        "bootstrap.servers", bootstrapServers,
                                        "schema.registry.url", schemaRegistryUrl))
                        .applicationId();
        final String reward =
                RewardConfig.defaults(run, bootstrapServers, schemaRegistryUrl).applicationId();
        return List.of(
                new Stage("prediction", prediction, List.of(TopicCatalog.TRANSITIONS)),
                new Stage(
                        "reward",
                        reward,
                        List.of(topics.predictions().name(), TopicCatalog.TRANSITIONS)),
                new Stage(
                        "trainer",
                        TrainerLoop.transactionalId(run),
                        List.of(topics.rewards().name())));
    }

    /** The stages this collector measures. */
    public List<Stage> stages() {
        return stages;
    }

    /** Reads the run's status now; rates compare with the previous call's end offsets. */
    public synchronized RunStatus collect() {
        final Instant now = Instant.now();
        final long nanos = System.nanoTime();
        final Set<String> existing = existingTopics();
        final List<String> watched = watchedTopics();
        final Map<TopicPartition, long[]> offsets = offsets(watched, existing);
        final List<StageLag> lags = new ArrayList<>();
        for (final Stage stage : stages) {
            lags.add(lag(stage, offsets));
        }
        if (existing.contains(topics.models().name())) {
            modelsConsumer = catchUp(modelsConsumer, topics.models().name(), this::onVersion);
        }
        if (existing.contains(topics.rewards().name())) {
            rewardsConsumer = catchUp(rewardsConsumer, topics.rewards().name(), this::onReward);
        }
        final Map<String, Long> ends = new LinkedHashMap<>();
        final List<TopicRate> rates = new ArrayList<>();
        final double seconds = (nanos - previousNanos) / 1e9;
        for (final String topic : watched) {
            long records = 0;
            long end = 0;
            for (final Map.Entry<TopicPartition, long[]> e : offsets.entrySet()) {
                if (e.getKey().topic().equals(topic)) {
                    records += e.getValue()[1] - e.getValue()[0];
                    end += e.getValue()[1];
                }
            }
            ends.put(topic, end);
            final Long before = previousEnds.get(topic);
            final Double rate =
                    before == null || seconds <= 0 ? null : Math.max(0, end - before) / seconds;
            rates.add(new TopicRate(topic, existing.contains(topic), records, end, rate));
        }
        previousEnds = ends;
        previousNanos = nanos;
        return new RunStatus(
                run, now, lags, versionInfos(), rates, deadLetterSummaries(existing, offsets));
    }

    private List<String> watchedTopics() {
        final List<String> watched = new ArrayList<>();
        watched.add(TopicCatalog.TRANSITIONS);
        watched.add(topics.predictions().name());
        watched.add(topics.rewards().name());
        watched.add(topics.models().name());
        watched.addAll(DeadLetterStore.topicsOf(run));
        return watched;
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
                            + bootstrapServers
                            + " ("
                            + e.getMessage()
                            + "); check --bootstrap-servers and that the cluster is up",
                    e);
        }
    }

    /** Start and end offsets ({@code [start, end]}) of every partition of the existing topics. */
    private Map<TopicPartition, long[]> offsets(
            final List<String> watched, final Set<String> existing) {
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
        final Map<TopicPartition, ListOffsetsResultInfo> starts =
                await(admin.listOffsets(earliest).all());
        final Map<TopicPartition, ListOffsetsResultInfo> ends =
                await(admin.listOffsets(latest).all());
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
        for (final String topic : stage.inputTopics()) {
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
        return new StageLag(stage.stage(), stage.groupId(), byTopic, !committed.isEmpty());
    }

    /** Reads {@code topic} from where the consumer stopped up to its current end. */
    private KafkaConsumer<byte[], byte[]> catchUp(
            final KafkaConsumer<byte[], byte[]> existing,
            final String topic,
            final BiConsumer<ConsumerRecord<byte[], byte[]>, String> handler) {
        KafkaConsumer<byte[], byte[]> consumer = existing;
        if (consumer == null) {
            consumer = consumer();
            final List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, ADMIN_TIMEOUT).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }
        final Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        final long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (System.nanoTime() < deadline && behind(consumer, ends)) {
            for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.value() != null) {
                    handler.accept(r, topic);
                }
            }
        }
        return consumer;
    }

    private static boolean behind(
            final KafkaConsumer<byte[], byte[]> consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return true;
            }
        }
        return false;
    }

    private void onVersion(final ConsumerRecord<byte[], byte[]> r, final String topic) {
        try {
            final ModelVersion v = versionSerde.deserializer().deserialize(topic, r.value());
            versions.put(v.getVersion(), v);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Skipping undecodable manifest at {}-{}@{}: {}",
                    topic,
                    r.partition(),
                    r.offset(),
                    e.toString());
        }
    }

    private void onReward(final ConsumerRecord<byte[], byte[]> r, final String topic) {
        try {
            final RewardedGroup g = rewardSerde.deserializer().deserialize(topic, r.value());
            rewardedCounts.computeIfAbsent(g.getModelVersion(), v -> new long[1])[0]++;
            passRateSums.merge(g.getModelVersion(), g.getStats().getPassRate(), Double::sum);
        } catch (RuntimeException e) {
            LOG.debug(
                    "Skipping undecodable rewarded group at {}-{}@{}",
                    topic,
                    r.partition(),
                    r.offset(),
                    e);
        }
    }

    private List<VersionInfo> versionInfos() {
        final List<VersionInfo> infos = new ArrayList<>();
        for (final ModelVersion v : versions.values()) {
            final ModelVersion parent =
                    v.getParentVersion() == null ? null : versions.get(v.getParentVersion());
            Double groupsPerSecond = null;
            if (parent != null) {
                final double seconds =
                        Duration.between(parent.getCreatedAt(), v.getCreatedAt()).toMillis() / 1e3;
                if (seconds > 0) {
                    groupsPerSecond = v.getCounters().getGroups() / seconds;
                }
            }
            final long[] count = rewardedCounts.get(v.getVersion());
            final long rewarded = count == null ? 0 : count[0];
            infos.add(
                    new VersionInfo(
                            v.getVersion(),
                            v.getParentVersion(),
                            v.getCreatedAt(),
                            v.getObjective(),
                            v.getCounters().getSteps(),
                            v.getCounters().getGroups(),
                            groupsPerSecond,
                            finite(v.getMetrics()),
                            rewarded,
                            rewarded == 0 ? null : passRateSums.get(v.getVersion()) / rewarded));
        }
        return infos;
    }

    /** Metrics without NaN or infinities, which neither JSON nor a chart can show. */
    private static Map<String, Double> finite(final Map<String, Double> metrics) {
        final Map<String, Double> out = new TreeMap<>();
        metrics.forEach(
                (k, value) -> {
                    if (value != null && Double.isFinite(value)) {
                        out.put(k, value);
                    }
                });
        return out;
    }

    private List<DeadLetterSummary> deadLetterSummaries(
            final Set<String> existing, final Map<TopicPartition, long[]> offsets) {
        final List<DeadLetterSummary> summaries = new ArrayList<>();
        for (final String topic : DeadLetterStore.topicsOf(run)) {
            if (!existing.contains(topic)) {
                continue;
            }
            long count = 0;
            for (final Map.Entry<TopicPartition, long[]> e : offsets.entrySet()) {
                if (e.getKey().topic().equals(topic)) {
                    count += e.getValue()[1] - e.getValue()[0];
                }
            }
            final List<DeadLetterBrief> latest = new ArrayList<>();
            if (count > 0) {
                for (final DeadLetterEntry entry : deadLetters.latest(topic, LATEST_DEAD_LETTERS)) {
                    latest.add(
                            new DeadLetterBrief(
                                    entry.offset(),
                                    entry.stage(),
                                    entry.reason(),
                                    entry.source(),
                                    entry.failedAt(),
                                    shorten(entry.message(), 160)));
                }
            }
            summaries.add(new DeadLetterSummary(topic, count, latest));
        }
        return summaries;
    }

    private static String shorten(final String text, final int max) {
        if (text == null) {
            return "";
        }
        final String line = text.replace('\n', ' ');
        return line.length() <= max ? line : line.substring(0, max) + "...";
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        final Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "rwml-status-" + run);
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private <T> T await(final org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the status of " + run, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "reading the status of run " + run + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        if (modelsConsumer != null) {
            modelsConsumer.close();
        }
        if (rewardsConsumer != null) {
            rewardsConsumer.close();
        }
        deadLetters.close();
        versionSerde.close();
        rewardSerde.close();
        admin.close(Duration.ofSeconds(5));
    }
}
