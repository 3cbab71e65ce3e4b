package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.channel.ChunkObserver;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.ArtifactRef;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.TrainingCounters;
import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StartPositions;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.ModelRuntime;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.ModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The prediction stage on the embedded broker and registry, with a real tiny world model. */
class PredictionAppIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final TopicCatalog CATALOG = TopicCatalog.defaults();

    @TempDir Path stateDir;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private String run;
    private RunTopics topics;
    private Map<String, String> registry;
    private ModelChannel channel;
    private KafkaProducer<byte[], byte[]> modelProducer;
    private KafkaProducer<byte[], byte[]> transitionProducer;
    private Serializer<Transition> transitionSerializer;

    @BeforeEach
    void createRun() {
        run = "pred-it-" + UUID.randomUUID().toString().substring(0, 8);
        topics = CATALOG.run(run);
        registry = EventSerdes.registryConfig(KAFKA.schemaRegistryUrl());
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, CATALOG).ensure(CATALOG.forRun(run));
        }
        channel =
                closeLater(
                        ModelChannel.of(
                                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()),
                                run));
        modelProducer = closeLater(new KafkaProducer<>(channel.producerConfig("models-" + run)));
        modelProducer.initTransactions();
        final Map<String, Object> producer = new HashMap<>();
        producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        transitionProducer = closeLater(new KafkaProducer<>(producer));
        transitionSerializer = CATALOG.transitions().valueSerde(registry).serializer();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(final T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private PredictionConfig config(final Map<String, String> overrides) {
        final Map<String, String> values = new HashMap<>();
        // Other tests of this JVM wrote to the shared transitions topic before this one started.
        values.put("start.from", Instant.now().toString());
        values.put("batch.size", "4");
        values.put("batch.max.wait", "PT0.1S");
        values.put("group.size", "2");
        values.put("sampling.max.new.tokens", "6");
        values.put("state.dir", stateDir.toString());
        values.put("streams.commit.interval.ms", "200");
        values.putAll(overrides);
        return PredictionConfig.defaults(run, KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl())
                .with(values);
    }

    private PredictionStage startApp() {
        return startApp(Map.of());
    }

    private PredictionStage startApp(final Map<String, String> overrides) {
        return closeLater(
                PredictionApp.start(
                        config(overrides),
                        new SimpleMeterRegistry(),
                        CheckpointModelLoader.standard()));
    }

    /** Whether the run's group has committed offsets up to the end of every partition. */
    private boolean consumedEverything() throws Exception {
        try (Admin admin = KAFKA.admin()) {
            final Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets("rwml-" + run + "-prediction")
                            .partitionsToOffsetAndMetadata()
                            .get();
            final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            committed.keySet().stream()
                    .filter(tp -> tp.topic().equals(TopicCatalog.TRANSITIONS))
                    .forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            if (latest.isEmpty()) {
                return false;
            }
            final var ends = admin.listOffsets(latest).all().get();
            return latest.keySet().stream()
                    .allMatch(tp -> committed.get(tp).offset() == ends.get(tp).offset());
        }
    }

    private void publishModel(final long version, final long seed) {
        final Checkpoint checkpoint = TinyWorldModels.checkpoint(version, seed);
        modelProducer.beginTransaction();
        ModelPublisher.chunked(channel)
                .publish(
                        modelProducer,
                        manifest(version),
                        Checkpoint.FORMAT,
                        checkpoint.toBytes(),
                        ChunkObserver.NONE);
        modelProducer.commitTransaction();
    }

    /** Publishes a version whose one chunk has a flipped byte, so its SHA-256 does not match. */
    private void publishCorruptedModel(final long version) throws Exception {
        final byte[] good = TinyWorldModels.checkpoint(version, 99).toBytes();
        final byte[] bad = good.clone();
        bad[bad.length / 2] ^= 0x5A;
        final Serializer<ModelChunk> chunks =
                topics.modelChunks().valueSerde(registry).serializer();
        final Serializer<ModelVersion> manifests =
                topics.models().valueSerde(registry).serializer();
        modelProducer.beginTransaction();
        final RecordMetadata chunk =
                modelProducer
                        .send(
                                new ProducerRecord<>(
                                        channel.chunksTopic(),
                                        0,
                                        ModelChannel.keyBytes(ModelChannel.chunkKey(version, 0)),
                                        chunks.serialize(
                                                channel.chunksTopic(),
                                                ModelChunk.newBuilder()
                                                        .setRun(run)
                                                        .setVersion(version)
                                                        .setIndex(0)
                                                        .setCount(1)
                                                        .setData(ByteBuffer.wrap(bad))
                                                        .build())))
                        .get();
        final ModelVersion manifest =
                manifest(version)
                        .setArtifact(
                                ArtifactRef.newBuilder()
                                        .setFormat(Checkpoint.FORMAT)
                                        .setSizeBytes(good.length)
                                        .setSha256(Checkpoint.sha256(good))
                                        .setChunkCount(1)
                                        .setChunkPartition(0)
                                        .setFirstChunkOffset(chunk.offset())
                                        .build())
                        .build();
        modelProducer.send(
                new ProducerRecord<>(
                        channel.modelsTopic(),
                        ModelChannel.keyBytes(Long.toString(version)),
                        manifests.serialize(channel.modelsTopic(), manifest)));
        modelProducer.commitTransaction();
    }

    private ModelVersion.Builder manifest(final long version) {
        return ModelVersion.newBuilder()
                .setRun(run)
                .setVersion(version)
                .setParentVersion(version == 0 ? null : version - 1)
                .setCreatedAt(Instant.now())
                .setObjective(version == 0 ? "init" : "grpo")
                .setCounters(TrainingCounters.newBuilder().build());
    }

    private List<String> produceTransitions(final String episode, final int from, final int to) {
        final List<String> ids = new ArrayList<>();
        for (int step = from; step < to; step++) {
            final Transition t =
                    TinyWorldModels.transition(episode, step, "next " + step, step % 3);
            sendRaw(
                    t.getTransitionId(),
                    transitionSerializer.serialize(TopicCatalog.TRANSITIONS, t));
            ids.add(t.getTransitionId());
        }
        transitionProducer.flush();
        return ids;
    }

    private void sendRaw(final String key, final byte[] value) {
        transitionProducer.send(
                new ProducerRecord<>(
                        TopicCatalog.TRANSITIONS, key.getBytes(StandardCharsets.UTF_8), value));
    }

    /** Everything committed on a topic so far, read with read_committed from the beginning. */
    private <V> List<ConsumerRecord<String, V>> readCommitted(
            final String topic, final Deserializer<V> values) {
        try (KafkaConsumer<String, V> consumer =
                TestClients.readCommittedConsumer(
                        KAFKA.bootstrapServers(), new StringDeserializer(), values)) {
            final List<TopicPartition> partitions =
                    TestClients.assignFromBeginning(consumer, topic);
            final Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            final List<ConsumerRecord<String, V>> out = new ArrayList<>();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            return out;
        }
    }

    private List<PredictionGroup> groups() {
        return readCommitted(
                        topics.predictions().name(),
                        topics.predictions().valueSerde(registry).deserializer())
                .stream()
                .map(ConsumerRecord::value)
                .toList();
    }

    private Set<String> keys(final List<PredictionGroup> groups) {
        return groups.stream().map(PredictionGroup::getTransitionId).collect(Collectors.toSet());
    }

    @Test
    void shouldEmitExactlyOneGroupPerTransitionAcrossARestartMidStream() {
        publishModel(0, 1);
        // Batches of 7 and no time-based flush: once everything is consumed, the transitions of
        // each partition's last partial batch sit in the buffer store with their offsets
        // committed, so only the store can bring them back after the restart.
        final PredictionStage first =
                startApp(Map.of("batch.size", "7", "batch.max.wait", "PT10M"));
        final List<String> ids = new ArrayList<>(produceTransitions("restart", 0, 30));
        await().atMost(WAIT).until(this::consumedEverything);
        first.close();
        assertThat(groups()).isNotEmpty().hasSizeLessThan(ids.size());

        ids.addAll(produceTransitions("restart", 30, 60));
        final PredictionStage second = startApp();
        await().atMost(WAIT).until(() -> keys(groups()).size() == ids.size());
        second.close();

        final List<PredictionGroup> all = groups();
        assertThat(all).hasSize(ids.size());
        assertThat(keys(all)).containsExactlyInAnyOrderElementsOf(ids);
    }

    /**
     * Flow control: with more than {@code flow.max.groups.ahead} groups waiting for the reward
     * stage (nothing consumes them here), the stage stops generating, however many transitions
     * arrive; once they are consumed it goes on.
     */
    @Test
    void shouldHoldGenerationBackWhileTooManyGroupsWaitDownstream() throws Exception {
        publishModel(0, 1);
        final PredictionStage stage = startApp(Map.of("flow.max.groups.ahead", "8"));
        final List<String> ids = new ArrayList<>(produceTransitions("flow", 0, 12));
        await().atMost(WAIT).until(stage::generationPaused);
        final int generated = groups().size();
        assertThat(generated).as("paused once more than 8 waited").isGreaterThan(8);

        ids.addAll(produceTransitions("flow", 12, 40));
        await().during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(30))
                .until(() -> groups().size() == generated);

        // The reward stage catches up: its group commits the end of the predictions topic.
        try (Admin admin = KAFKA.admin()) {
            final Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
            admin.listOffsets(
                            admin
                                    .describeTopics(List.of(topics.predictions().name()))
                                    .allTopicNames()
                                    .get()
                                    .get(topics.predictions().name())
                                    .partitions()
                                    .stream()
                                    .collect(
                                            Collectors.toMap(
                                                    p ->
                                                            new TopicPartition(
                                                                    topics.predictions().name(),
                                                                    p.partition()),
                                                    p -> OffsetSpec.latest())))
                    .all()
                    .get()
                    .forEach((tp, o) -> ends.put(tp, new OffsetAndMetadata(o.offset())));
            admin.alterConsumerGroupOffsets("rwml-" + run + "-reward", ends).all().get();
        }
        await().atMost(WAIT).until(() -> keys(groups()).size() == ids.size());
        assertThat(keys(groups())).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void shouldGenerateTheRestoredBufferAtOnceAfterACrashLeftATransactionOpen() throws Exception {
        publishModel(0, 1);
        // Batches of 7 and no time-based flush: what the first instance consumed last waits in
        // the committed buffer store.
        final PredictionStage first =
                startApp(Map.of("batch.size", "7", "batch.max.wait", "PT10M"));
        final List<String> ids = produceTransitions("sigkill", 0, 10);
        await().atMost(WAIT).until(this::consumedEverything);
        first.close();
        final int generatedBefore = groups().size();
        assertThat(generatedBefore).isLessThan(ids.size());

        // A SIGKILL in the middle of a batch leaves the dead instance's transaction open: its
        // buffer writes and its input offsets pending, so every read_committed reader of the
        // changelog and the group's offsets waits for it. Only a producer with the same
        // transactional id aborts it at once; anyone else waits for its transaction timeout.
        final String group = "rwml-" + run + "-prediction";
        final List<String> deadIds = transactionalIdsOf(group);
        assertThat(deadIds).isNotEmpty();
        for (final String deadId : deadIds) {
            leaveTransactionOpen(deadId, group);
        }

        // The restarted instance gets no new transition: the restored buffer alone must be
        // generated, well before the dead transaction's five minutes are up.
        final long restartedAt = System.nanoTime();
        startApp(Map.of("batch.size", "7"));
        await().atMost(Duration.ofSeconds(60)).until(() -> keys(groups()).size() == ids.size());
        final Duration took = Duration.ofNanos(System.nanoTime() - restartedAt);

        assertThat(groups()).hasSize(ids.size());
        assertThat(keys(groups())).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(took).isLessThan(Duration.ofSeconds(60));
    }

    /** The transactional ids the stage's producers registered with the coordinator. */
    private static List<String> transactionalIdsOf(final String applicationId) throws Exception {
        try (Admin admin = KAFKA.admin()) {
            return admin.listTransactions().all().get().stream()
                    .map(TransactionListing::transactionalId)
                    .filter(id -> id.startsWith(applicationId + "-"))
                    .toList();
        }
    }

    /**
     * What a killed instance leaves behind: under its transactional id, a transaction with a
     * buffer-store write and the group's input offsets, neither committed nor aborted.
     */
    private void leaveTransactionOpen(final String transactionalId, final String group)
            throws Exception {
        final Map<TopicPartition, OffsetAndMetadata> committed;
        try (Admin admin = KAFKA.admin()) {
            committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        }
        final Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 300_000);
        final KafkaProducer<byte[], byte[]> dead = new KafkaProducer<>(props);
        dead.initTransactions();
        dead.beginTransaction();
        final String changelog = group + "-" + PredictionTopology.BUFFER_STORE + "-changelog";
        dead.send(
                        new ProducerRecord<>(
                                changelog,
                                0,
                                Serdes.Long().serializer().serialize(changelog, Long.MAX_VALUE),
                                null))
                .get();
        dead.sendOffsetsToTransaction(committed, new ConsumerGroupMetadata(group));
        dead.flush();
        // A forced close neither commits nor aborts, like the kill.
        dead.close(Duration.ZERO);
    }

    /** What a stream thread dies of in the crash test: not a RuntimeException, so not handled. */
    private static final class SimulatedCrash extends Error {
        private static final long serialVersionUID = 1L;

        SimulatedCrash() {
            super("simulated crash of the stream thread in the middle of a batch");
        }
    }

    /** The real model, except that its {@code crashAt}-th generation kills the calling thread. */
    private static ModelLoader crashingOnce(final int crashAt) {
        final CheckpointModelLoader real = CheckpointModelLoader.standard();
        final AtomicInteger calls = new AtomicInteger();
        return new ModelLoader() {
            @Override
            public PredictionModel load(
                    final VerifiedArtifact artifact, final ArtifactSource versions) {
                final PredictionModel model = real.load(artifact, versions);
                return new PredictionModel() {
                    @Override
                    public long version() {
                        return model.version();
                    }

                    @Override
                    public int maxContext() {
                        return model.maxContext();
                    }

                    @Override
                    public Prompt prompt(final Transition transition, final int maxTokens) {
                        return model.prompt(transition, maxTokens);
                    }

                    @Override
                    public String decode(final int[] tokenIds) {
                        return model.decode(tokenIds);
                    }

                    @Override
                    public List<List<Sample>> sample(
                            final List<int[]> prompts,
                            final SamplingSettings sampling,
                            final long seed) {
                        final List<List<Sample>> groups = model.sample(prompts, sampling, seed);
                        if (calls.incrementAndGet() == crashAt) {
                            throw new SimulatedCrash();
                        }
                        return groups;
                    }

                    @Override
                    public void close() {
                        model.close();
                    }
                };
            }

            @Override
            public void close() {
                real.close();
            }
        };
    }

    @Test
    void shouldStayExactlyOnceWhenAStreamThreadDiesInTheMiddleOfABatch() {
        publishModel(0, 1);
        final PredictionStage app =
                closeLater(
                        PredictionApp.start(
                                config(Map.of("streams.session.timeout.ms", "6000")),
                                new SimpleMeterRegistry(),
                                crashingOnce(5)));
        final List<String> ids = produceTransitions("crash", 0, 40);

        // Four batches were committed or in flight when the fifth killed the thread; the
        // replacement thread aborts that transaction and generates the rest again.
        await().atMost(WAIT).until(() -> keys(groups()).size() == ids.size());
        app.close();

        final List<PredictionGroup> all = groups();
        assertThat(all).hasSize(ids.size());
        assertThat(keys(all)).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void shouldWaitForVersionZeroThenServeNewVersionsAndRejectACorruptedOne() throws Exception {
        final PredictionStage app = startApp();
        final List<String> early = produceTransitions("versions", 0, 4);
        assertThat(app.phase()).isEqualTo(PredictionStage.Phase.WAITING_FOR_MODEL);

        publishModel(0, 1);
        await().atMost(WAIT).until(() -> keys(groups()).containsAll(early));

        publishCorruptedModel(1);
        await().atMost(WAIT).until(() -> app.rejectedModelVersions() == 1);
        final List<String> afterCorrupt = produceTransitions("versions", 4, 8);
        await().atMost(WAIT).until(() -> keys(groups()).containsAll(afterCorrupt));

        publishModel(2, 2);
        await().atMost(WAIT).until(() -> app.models().version().orElse(-1) == 2);
        final List<String> afterSwap = produceTransitions("versions", 8, 12);
        await().atMost(WAIT).until(() -> keys(groups()).containsAll(afterSwap));

        final Map<String, Long> versions =
                groups().stream()
                        .collect(
                                Collectors.toMap(
                                        PredictionGroup::getTransitionId,
                                        PredictionGroup::getModelVersion));
        assertThat(early).allSatisfy(id -> assertThat(versions.get(id)).isZero());
        assertThat(afterCorrupt).allSatisfy(id -> assertThat(versions.get(id)).isZero());
        assertThat(afterSwap).allSatisfy(id -> assertThat(versions.get(id)).isEqualTo(2L));
    }

    @Test
    void shouldRefuseAtStartABatchThatCannotFitTheMemoryItMayUse() {
        // 64 prompts of 500 tokens x G = 8 of the tiny model: hundreds of MiB, against 1 MiB
        final PredictionStage app =
                startApp(
                        Map.of(
                                "batch.size",
                                "64",
                                "group.size",
                                "8",
                                ModelRuntime.MEMORY_LIMIT,
                                "1m"));
        final List<String> ids = produceTransitions("memory", 0, 2);
        publishModel(0, 1);
        await().atMost(WAIT).until(() -> app.termination().isDone());
        assertThat(app.phase()).isEqualTo(PredictionStage.Phase.FAILED);
        assertThat(app.termination())
                .failsWithin(Duration.ZERO)
                .withThrowableThat()
                .havingRootCause()
                .withMessageContaining("a batch of batch.size=64 transitions x group.size=8")
                .withMessageContaining("needs about")
                .withMessageContaining("KV cache")
                .withMessageContaining("is allowed (model.memory.limit)")
                .withMessageContaining("lower batch.size");
        assertThat(keys(groups())).doesNotContainAnyElementsOf(ids);
    }

    @Test
    void shouldRouteAPoisonRecordToTheDeadLetterTopicWhileTheRestFlow() {
        publishModel(0, 1);
        startApp();
        final byte[] garbage = {0x13, 0x37, 0x00, 0x42, 0x7f};
        final List<String> before = produceTransitions("poison", 0, 5);
        sendRaw("poison/garbage/0", garbage);
        final List<String> after = produceTransitions("poison", 5, 10);

        await().atMost(WAIT)
                .until(
                        () -> {
                            final Set<String> seen = keys(groups());
                            return seen.containsAll(before) && seen.containsAll(after);
                        });
        final List<ConsumerRecord<String, DeadLetter>> letters =
                readCommitted(
                        topics.deadLetters().name(),
                        topics.deadLetters().valueSerde(registry).deserializer());
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).key()).isEqualTo("poison/garbage/0");
        assertThat(letters.get(0).value().getOriginalValue()).isEqualTo(ByteBuffer.wrap(garbage));
        assertThat(letters.get(0).value().getSourceTopic()).isEqualTo(TopicCatalog.TRANSITIONS);
        assertThat(groups()).hasSize(before.size() + after.size());
    }

    @Test
    void shouldCommitTheEndOffsetsForLatestSoAStopBeforeAnyTransitionSkipsNone() throws Exception {
        produceTransitions("before-start", 0, 3);
        final String group = "rwml-" + run + "-prediction";
        try (Admin admin = KAFKA.admin()) {
            final Map<TopicPartition, Long> ends = KAFKA.endOffsets(TopicCatalog.TRANSITIONS);

            final Map<TopicPartition, Long> started = seekLatestIfNew(admin, group);
            produceTransitions("while-stopped", 0, 3);
            final Map<TopicPartition, Long> restarted = seekLatestIfNew(admin, group);

            assertThat(started).as("latest: the end when the stage started").isEqualTo(ends);
            assertThat(restarted).as("an existing group resumes").isEmpty();
            final Map<TopicPartition, Long> committed =
                    admin
                            .listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .entrySet()
                            .stream()
                            .collect(
                                    Collectors.toMap(
                                            Map.Entry::getKey, e -> e.getValue().offset()));
            assertThat(committed)
                    .as("what arrived while the stage was stopped is still ahead of it")
                    .isEqualTo(ends);
        }
    }

    @Test
    void shouldStartANewGroupAfterTheBaseLineageAndLeaveAnExistingOneAlone() throws Exception {
        produceTransitions("base-slice", 0, 3);
        final String group = "rwml-" + run + "-prediction";
        try (Admin admin = KAFKA.admin()) {
            final Map<TopicPartition, Long> ends = KAFKA.endOffsets(TopicCatalog.TRANSITIONS);
            final TopicPartition first = new TopicPartition(TopicCatalog.TRANSITIONS, 0);
            final TopicPartition second = new TopicPartition(TopicCatalog.TRANSITIONS, 1);
            final long trainedUntil = Math.max(0, ends.get(first) - 1);
            // Partition 0 up to its last record, partition 1 beyond its end; the rest untouched.
            final List<OffsetRange> lineage =
                    List.of(
                            new OffsetRange(TopicCatalog.TRANSITIONS, 0, 0L, trainedUntil),
                            new OffsetRange(
                                    TopicCatalog.TRANSITIONS, 1, 0L, ends.get(second) + 100));

            final Map<TopicPartition, Long> started =
                    StartPositions.seekIfNew(
                            admin,
                            group,
                            TopicCatalog.TRANSITIONS,
                            StartPosition.AFTER_BASE,
                            () -> lineage,
                            Duration.ofSeconds(30),
                            Duration.ofSeconds(30));
            final Map<TopicPartition, Long> restarted =
                    StartPositions.seekIfNew(
                            admin,
                            group,
                            TopicCatalog.TRANSITIONS,
                            StartPosition.AFTER_BASE,
                            () -> {
                                throw new AssertionError("an existing group needs no lineage");
                            },
                            Duration.ofSeconds(30),
                            Duration.ofSeconds(30));

            assertThat(started.get(first)).isEqualTo(trainedUntil);
            assertThat(started.get(second)).as("never past the end").isEqualTo(ends.get(second));
            started.forEach(
                    (tp, offset) -> {
                        if (tp.partition() > 1) {
                            assertThat(offset).as("outside the lineage: %s", tp).isZero();
                        }
                    });
            assertThat(restarted).isEmpty();
        }
    }

    private static Map<TopicPartition, Long> seekLatestIfNew(final Admin admin, final String group)
            throws Exception {
        return StartPositions.seekIfNew(
                admin,
                group,
                TopicCatalog.TRANSITIONS,
                StartPosition.LATEST,
                List::of,
                Duration.ofSeconds(30),
                Duration.ofSeconds(30));
    }
}
