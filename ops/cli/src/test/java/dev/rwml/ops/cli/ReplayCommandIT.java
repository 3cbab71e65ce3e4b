package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.env.EnvKind;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.pipeline.replay.TransitionSlice;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rwml replay} over a middle slice of the log on the embedded broker and registry: run once,
 * before the tests, then checked by one test per behaviour.
 */
@Tag("system")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplayCommandIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final String BASE_RUN = "replay-base";
    private static final String RUN = "replay-new";
    private static final String FILTERED = "replay-filtered";
    private static final String LOADED = "replay-loaded";

    // What the replay left, for the tests.
    private CliRunner.Result result;
    private List<ModelVersion> versions;
    private List<String> slice;
    private List<String> predicted;
    private CliRunner.Result filteredResult;
    private List<TransitionDifficulty> verdicts;
    private List<String> predictedAfterFilter;
    private List<ModelVersion> versionsLoaded;
    private Map<String, String> generated;
    private Map<String, String> generatedLoaded;

    /**
     * Produces transitions, initialises the base run on them, produces the slice and more after it,
     * and replays the slice into a new run for two epochs.
     */
    @BeforeAll
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void replayTheMiddleSliceIntoANewRun(@TempDir final Path dir) throws Exception {
        final String bootstrap = KAFKA.bootstrapServers();
        final String registry = KAFKA.schemaRegistryUrl();
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            new TopicAdmin(admin, catalog).ensure(catalog.shared());
        }
        produce(bootstrap, registry, 3, 11);
        BaseModelInit.run(
                BaseModelInit.Config.of(
                        BASE_RUN,
                        Connection.of(bootstrap, registry),
                        "tiny",
                        3,
                        1_000_000,
                        Set.of(EnvKind.ALFWORLD.id()),
                        1),
                BaseModelInit.Listener.NONE);
        final Map<Integer, Long> from = ends(bootstrap);
        produce(bootstrap, registry, 2, 12);
        final Map<Integer, Long> until = ends(bootstrap);
        produce(bootstrap, registry, 1, 13);

        result = replay(RUN, from, until, dir);
        versions = versions(bootstrap, registry, RUN);
        slice = sliceIds(bootstrap, from, until);
        predicted = predictedIds(bootstrap, registry, RUN);

        // The same slice through the paper's offline filter: the base judges it first.
        filteredResult =
                replay(
                        FILTERED,
                        from,
                        until,
                        dir,
                        "--filter-run",
                        BASE_RUN,
                        "--set",
                        "filter.tries=2",
                        "--set",
                        "filter.sampling.max.new.tokens=16");
        verdicts = verdicts(bootstrap, registry);
        predictedAfterFilter = predictedIds(bootstrap, registry, FILTERED);

        // The same replay once more, with both cores kept busy.
        try (CpuLoad load = new CpuLoad(4)) {
            assertThat(replay(LOADED, from, until, dir).code()).isZero();
        }
        versionsLoaded = versions(bootstrap, registry, LOADED);
        generatedLoaded = generated(bootstrap, registry, LOADED);
        generated = generated(bootstrap, registry, RUN);
    }

    /**
     * Replays the slice into {@code run} for two epochs in rounds of about 8 transitions, training
     * WM-SFT, which steps on every group (the barely trained base gives GRPO no advantage), so that
     * every round's version differs and generates the next round.
     */
    private static CliRunner.Result replay(
            final String run,
            final Map<Integer, Long> from,
            final Map<Integer, Long> until,
            final Path dir) {
        return replay(
                run,
                from,
                until,
                dir,
                "--epochs",
                "2",
                "--round-transitions",
                "8",
                "--set",
                "trainer.objective=sft");
    }

    /** {@code rwml replay} of the slice into {@code run} from the base, with {@code more} args. */
    private static CliRunner.Result replay(
            final String run,
            final Map<Integer, Long> from,
            final Map<Integer, Long> until,
            final Path dir,
            final String... more) {
        final List<String> args =
                new ArrayList<>(
                        List.of(
                                "replay",
                                "--run",
                                run,
                                "--from-run",
                                BASE_RUN,
                                "--from",
                                TransitionSlice.text(from),
                                "--until",
                                TransitionSlice.text(until),
                                "--state-dir",
                                dir.toString(),
                                "--bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--schema-registry-url",
                                KAFKA.schemaRegistryUrl(),
                                "--set",
                                "prediction.group.size=2",
                                "--set",
                                "prediction.sampling.max.new.tokens=16",
                                "--set",
                                "trainer.groups.per.step=2"));
        args.addAll(List.of(more));
        return CliRunner.rwml(args.toArray(String[]::new));
    }

    /** Threads that keep the CPUs busy until closed. */
    private static final class CpuLoad implements AutoCloseable {
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        CpuLoad(final int threadCount) {
            for (int i = 0; i < threadCount; i++) {
                final Thread t =
                        new Thread(
                                () -> {
                                    double x = 1;
                                    while (running) {
                                        x = Math.sin(x) + 1;
                                    }
                                },
                                "cpu-load-" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            for (final Thread t : threads) {
                t.join();
            }
        }
    }

    @Test
    void shouldJudgeExactlyTheSliceWhenFilteringOffline() {
        assertThat(filteredResult.code()).as(filteredResult.err()).isZero();
        assertThat(filteredResult.out()).contains("Filter pass:", "filter pass:");
        assertThat(verdicts)
                .extracting(TransitionDifficulty::getTransitionId)
                .as("every transition of the slice once, none after its end")
                .containsExactlyInAnyOrderElementsOf(slice);
        assertThat(verdicts).allSatisfy(v -> assertThat(v.getTries()).isEqualTo(2));
    }

    @Test
    void shouldTrainTheFilteredRunOnlyOnWhatTheFilterKept() {
        final List<String> kept =
                verdicts.stream()
                        .filter(TransitionDifficulty::getKept)
                        .map(TransitionDifficulty::getTransitionId)
                        .toList();
        assertThat(kept).isNotEmpty();
        assertThat(predictedAfterFilter).containsExactlyInAnyOrderElementsOf(kept);
    }

    @Test
    void shouldExitZero() {
        assertThat(result.code())
                .as("exit code; err:%n%s%nout:%n%s", result.err(), result.out())
                .isZero();
    }

    @Test
    void shouldSayTheReplayIsDoneAndDiffersFromTheLiveRun() {
        assertThat(result.out())
                .contains("Replay of run " + RUN + " done", "differs from the live");
    }

    @Test
    void shouldPublishTheBaseAndAtLeastOneTrainedVersion() {
        assertThat(versions).as("base and at least a final version").hasSizeGreaterThanOrEqualTo(2);
    }

    /**
     * Rounds make a replay independent of the machine's speed: run again under load, it trains and
     * publishes the same models, byte for byte.
     */
    @Test
    void shouldTrainTheSameModelsWhenRunAgainUnderLoad() {
        assertThat(versions.stream().mapToLong(v -> v.getCounters().getSteps()).skip(1).sum())
                .as("the replay took optimizer steps, so there is something to compare")
                .isPositive();
        final List<String> checksums = checksums(versions);
        assertThat(checksums).as("versions after the base").hasSizeGreaterThan(2);
        assertThat(checksums(versionsLoaded)).as("run under load").isEqualTo(checksums);
        assertThat(generated).hasSize(2 * slice.size());
        assertThat(generatedLoaded).as("run under load").isEqualTo(generated);
    }

    /**
     * Per transition and generating version, the group's sampled token ids and their similarities
     * to the observed next state, from the run's rewards topic.
     */
    private static Map<String, String> generated(
            final String bootstrap, final String registry, final String run) {
        final Map<String, String> out = new TreeMap<>();
        for (final RewardedGroup g :
                values(
                        bootstrap,
                        registry,
                        TopicCatalog.defaults().run(run).rewards().name(),
                        RewardedGroup.class)) {
            out.put(
                    g.getTransitionId() + "@" + g.getModelVersion(),
                    g.getSamples().stream()
                            .map(x -> x.getTokenIds() + "~" + x.getSimilarity())
                            .toList()
                            .toString());
        }
        return out;
    }

    private static List<String> checksums(final List<ModelVersion> published) {
        return published.stream()
                .skip(1)
                .map(v -> v.getCounters().getSteps() + ":" + v.getArtifact().getSha256())
                .toList();
    }

    @Test
    void shouldKeepTheLineageOfTheRunTheBaseWasCopiedFrom() {
        assertThat(versions.get(0).getLineage())
                .as("the base keeps the lineage of the run it was copied from")
                .isNotEmpty();
    }

    @Test
    void shouldPredictExactlyTheSliceOncePerEpoch() {
        assertThat(slice).isNotEmpty();
        // epoch 2 reads the same records again: predicted again, not refused as duplicates
        assertThat(predicted)
                .as("one group per transition of the slice and epoch")
                .hasSize(2 * slice.size());
        assertThat(Set.copyOf(predicted)).isEqualTo(Set.copyOf(slice));
        for (final String id : slice) {
            assertThat(predicted.stream().filter(id::equals)).as(id).hasSize(2);
        }
    }

    @Test
    void shouldTrainOnTheWholeRewardsTopicWithoutGapOrOverlap() {
        assertLineageCoversRewardsTopic(
                KAFKA.bootstrapServers(), versions.subList(1, versions.size()));
    }

    private static void assertLineageCoversRewardsTopic(
            final String bootstrap, final List<ModelVersion> trained) {
        final String rewards = TopicCatalog.defaults().run(RUN).rewards().name();
        final Map<Integer, List<OffsetRange>> byPartition = new TreeMap<>();
        trained.stream()
                .flatMap(v -> v.getLineage().stream())
                .filter(r -> r.getTopic().equals(rewards))
                .forEach(
                        r ->
                                byPartition
                                        .computeIfAbsent(r.getPartition(), p -> new ArrayList<>())
                                        .add(r));
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final List<TopicPartition> partitions =
                    consumer.partitionsFor(rewards).stream()
                            .map(p -> new TopicPartition(rewards, p.partition()))
                            .toList();
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            for (final TopicPartition tp : partitions) {
                long next = 0;
                for (final OffsetRange r :
                        byPartition.getOrDefault(tp.partition(), List.of()).stream()
                                .sorted(Comparator.comparingLong(OffsetRange::getFromOffset))
                                .toList()) {
                    assertThat(r.getFromOffset()).as("no gap or overlap on %s", tp).isEqualTo(next);
                    next = r.getUntilOffset();
                }
                assertThat(next).as("lineage reaches the end of %s", tp).isEqualTo(ends.get(tp));
            }
        }
    }

    private static void produce(
            final String bootstrap, final String registry, final int episodes, final long seed) {
        new TransitionProducer(
                        ProducerConfig.builder(
                                        EnvKind.ALFWORLD,
                                        KafkaSettings.of(Connection.of(bootstrap, registry)))
                                .agents(1)
                                .episodes(episodes)
                                .seed(seed)
                                .policy(PolicyKind.EPSILON)
                                .epsilon(0.3)
                                .baseTime(Instant.now())
                                .build(),
                        new SimpleMeterRegistry(),
                        ProgressListener.NONE)
                .run();
    }

    private static Map<Integer, Long> ends(final String bootstrap) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final Map<Integer, Long> out = new HashMap<>();
            consumer.endOffsets(
                            consumer.partitionsFor(TopicCatalog.TRANSITIONS).stream()
                                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                                    .toList())
                    .forEach((tp, o) -> out.put(tp.partition(), o));
            return out;
        }
    }

    private static List<String> sliceIds(
            final String bootstrap, final Map<Integer, Long> from, final Map<Integer, Long> until) {
        final List<String> ids = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            for (final int p : from.keySet()) {
                final TopicPartition tp = new TopicPartition(TopicCatalog.TRANSITIONS, p);
                consumer.assign(List.of(tp));
                consumer.seek(tp, from.get(p));
                while (consumer.position(tp) < until.get(p)) {
                    for (final ConsumerRecord<byte[], byte[]> r :
                            consumer.poll(Duration.ofSeconds(1))) {
                        if (r.offset() < until.get(p)) {
                            ids.add(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8));
                        }
                    }
                }
            }
        }
        return ids;
    }

    private static List<TransitionDifficulty> verdicts(
            final String bootstrap, final String registry) {
        return values(
                bootstrap,
                registry,
                TopicCatalog.defaults().run(FILTERED).difficulty().name(),
                TransitionDifficulty.class);
    }

    private static List<String> predictedIds(
            final String bootstrap, final String registry, final String run) {
        return values(
                        bootstrap,
                        registry,
                        TopicCatalog.defaults().run(run).predictions().name(),
                        PredictionGroup.class)
                .stream()
                .map(PredictionGroup::getTransitionId)
                .toList();
    }

    /** Every committed value of {@code topic}, decoded as {@code type}. */
    private static <T extends SpecificRecord> List<T> values(
            final String bootstrap,
            final String registry,
            final String topic,
            final Class<T> type) {
        final var deserializer =
                EventSerdes.forValue(type, EventSerdes.registryConfig(registry)).deserializer();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final List<TopicPartition> partitions =
                    TestClients.assignFromBeginning(consumer, topic);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            final List<T> out = new ArrayList<>();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                for (final ConsumerRecord<byte[], byte[]> r :
                        consumer.poll(Duration.ofSeconds(1))) {
                    out.add(deserializer.deserialize(topic, r.value()));
                }
            }
            return out;
        }
    }

    private static List<ModelVersion> versions(
            final String bootstrap, final String registry, final String run) {
        try (ModelChannel channel = ModelChannel.of(Connection.of(bootstrap, registry), run);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), Duration.ofSeconds(60))) {
            return reader.manifests();
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(final String bootstrap) {
        return TestClients.readCommittedConsumer(
                bootstrap, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
