package dev.rwml.channel.init;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.events.EnvRef;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.BaseModelTrainer;
import dev.rwml.worldmodel.TestCorpus;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code rwml model init} end to end on the embedded broker and registry. */
class BaseModelInitIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int HOUSEHOLD = 24;
    private static final int RETAIL = 6;

    /** Offsets each produced transition landed at, by partition. */
    private static final Map<Integer, List<Long>> PRODUCED = new TreeMap<>();

    @BeforeAll
    static void produceTransitions() throws Exception {
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.shared());
        }
        final List<Transition> all = new ArrayList<>(TestCorpus.alfworld(HOUSEHOLD));
        for (int i = 0; i < RETAIL; i++) {
            final Transition t = TestCorpus.retailToolCall();
            all.add(
                    Transition.newBuilder(t)
                            .setTransitionId("retail/r1/" + i)
                            .setStep(i)
                            .setEnv(new EnvRef("retail", "1", "train"))
                            .build());
        }
        try (EventSerde<Transition> serde =
                        catalog.transitions()
                                .valueSerde(EventSerdes.registryConfig(KAFKA.schemaRegistryUrl()));
                KafkaProducer<String, Transition> producer =
                        TestClients.producer(
                                KAFKA.bootstrapServers(),
                                new StringSerializer(),
                                serde.serializer())) {
            for (final Transition t : all) {
                final RecordMetadata m =
                        producer.send(
                                        new ProducerRecord<>(
                                                TopicCatalog.TRANSITIONS, t.getTransitionId(), t))
                                .get();
                PRODUCED.computeIfAbsent(m.partition(), p -> new ArrayList<>()).add(m.offset());
            }
        }
    }

    private static BaseModelInit.Config config(
            final String run, final int steps, final int maxTransitions, final Set<String> envs) {
        final BaseModelTrainer.Settings settings =
                new BaseModelTrainer.Settings(
                        ModelConfig.tiny(320),
                        320,
                        steps,
                        4,
                        3,
                        TrainConfig.sft(steps),
                        PromptFormat.DEFAULT_HISTORY_TURNS,
                        false);
        return new BaseModelInit.Config(
                run,
                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()),
                settings,
                maxTransitions,
                envs,
                WAIT);
    }

    /** Every partition's [beginning, end) of the transitions topic as it is now. */
    private static List<OffsetRange> wholeTopic() {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed"),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
            final List<TopicPartition> tps = new ArrayList<>();
            consumer.partitionsFor(TopicCatalog.TRANSITIONS)
                    .forEach(p -> tps.add(new TopicPartition(p.topic(), p.partition())));
            final Map<TopicPartition, Long> from = consumer.beginningOffsets(tps);
            final Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            final List<OffsetRange> ranges = new ArrayList<>();
            tps.stream()
                    .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
                    .forEach(
                            tp ->
                                    ranges.add(
                                            new OffsetRange(
                                                    tp.topic(),
                                                    tp.partition(),
                                                    from.get(tp),
                                                    end.get(tp))));
            return ranges;
        }
    }

    private static ModelChannel channel(final String run) {
        return ModelChannel.of(
                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()), run);
    }

    @Test
    void shouldPublishVersionZeroWithTheSliceAsLineageAndALoadableModel() throws Exception {
        final List<StepMetrics> steps = new CopyOnWriteArrayList<>();
        final List<PretrainingSlice> slices = new CopyOnWriteArrayList<>();
        final BaseModelInit.Result result =
                BaseModelInit.run(
                        config("init-it-whole", 4, 10_000, Set.of()),
                        new BaseModelInit.Listener() {
                            @Override
                            public void sliceRead(final PretrainingSlice slice) {
                                slices.add(slice);
                            }

                            @Override
                            public void step(final StepMetrics metrics, final int total) {
                                steps.add(metrics);
                            }
                        });

        final List<OffsetRange> topic = wholeTopic();
        assertThat(result.lineage()).isEqualTo(topic);
        for (final Map.Entry<Integer, List<Long>> e : PRODUCED.entrySet()) {
            final OffsetRange range = topic.get(e.getKey());
            assertThat(e.getValue())
                    .allSatisfy(
                            offset ->
                                    assertThat(offset)
                                            .isBetween(
                                                    range.getFromOffset(),
                                                    range.getUntilOffset() - 1));
        }
        assertThat(result.transitions()).isEqualTo(HOUSEHOLD + RETAIL);
        assertThat(slices.get(0).scanned()).isEqualTo(HOUSEHOLD + RETAIL);
        // in id order, whatever the partitions' interleaving: the same log, the same base
        assertThat(slices.get(0).transitions())
                .extracting(t -> t.getTransitionId().toString())
                .isSorted();
        assertThat(steps).hasSize(4);
        assertThat(result.nextOffsets())
                .containsEntry(0, topic.get(0).getUntilOffset())
                .hasSize(topic.size());

        try (ModelChannel channel = channel("init-it-whole");
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), WAIT)) {
            final List<ModelVersion> versions = reader.manifests();
            assertThat(versions).hasSize(1);
            final ModelVersion v0 = versions.get(0);
            assertThat(v0.getVersion()).isZero();
            assertThat(v0.getParentVersion()).isNull();
            assertThat(v0.getObjective()).isEqualTo("init");
            assertThat(v0.getLineage()).isEqualTo(topic);
            assertThat(v0.getCounters().getSteps()).isEqualTo(4);
            assertThat(v0.getCounters().getTokens()).isPositive();
            assertThat(v0.getMetrics())
                    .containsKeys("loss", "firstLoss", "gradNorm")
                    .containsEntry("transitions", (double) (HOUSEHOLD + RETAIL));
            assertThat(v0.getModelConfig()).containsEntry("dModel", "32");
            assertThat(v0.getArtifact().getFormat()).isEqualTo(Checkpoint.FORMAT);

            // fetch verifies size and SHA-256 against the manifest
            final VerifiedArtifact artifact = reader.fetch(0);
            final Checkpoint checkpoint = Checkpoint.fromBytes(artifact.bytes());
            assertThat(checkpoint.version()).isZero();
            assertThat(checkpoint.weights().keySet())
                    .isEqualTo(result.checkpoint().weights().keySet());
            try (WorldModel model = WorldModel.load(checkpoint)) {
                final Transition t = TestCorpus.alfworld(1).get(0);
                final int[] prompt =
                        PromptFormat.standard()
                                .build(PromptView.of(t), model.tokenizer(), 200)
                                .tokenIds();
                final List<Sample> samples =
                        model.generator()
                                .generate(List.of(prompt), 2, new SamplingParams(1f, 1f, 8, 5))
                                .get(0);
                assertThat(samples).hasSize(2);
                assertThat(samples).allSatisfy(s -> assertThat(s.tokenIds()).isNotEmpty());
            }
        }
    }

    @Test
    void shouldCutTheSliceAtMaxTransitionsAndKeepOnlyTheChosenEnvs() {
        final BaseModelInit.Result capped =
                BaseModelInit.run(
                        config("init-it-capped", 1, 7, Set.of()), BaseModelInit.Listener.NONE);
        assertThat(capped.transitions()).isEqualTo(7);
        long read = 0;
        for (final OffsetRange r : capped.lineage()) {
            read += r.getUntilOffset() - r.getFromOffset();
        }
        assertThat(read).as("records inside the lineage").isEqualTo(7);

        final List<PretrainingSlice> slices = new CopyOnWriteArrayList<>();
        final BaseModelInit.Result household =
                BaseModelInit.run(
                        config("init-it-household", 1, 10_000, Set.of("alfworld")),
                        new BaseModelInit.Listener() {
                            @Override
                            public void sliceRead(final PretrainingSlice slice) {
                                slices.add(slice);
                            }
                        });
        assertThat(household.transitions()).isEqualTo(HOUSEHOLD);
        assertThat(slices.get(0).otherEnvs()).isEqualTo(RETAIL);
        assertThat(slices.get(0).transitions())
                .allSatisfy(t -> assertThat(t.getEnv().getName()).isEqualTo("alfworld"));
        assertThat(household.manifest().getTrainerConfig()).containsEntry("envs", "alfworld");
    }

    @Test
    void shouldRefuseASecondInitOfTheSameRunAndKeepItsVersionZero() throws Exception {
        final BaseModelInit.Result first =
                BaseModelInit.run(
                        config("init-it-twice", 1, 10_000, Set.of()), BaseModelInit.Listener.NONE);
        assertThatThrownBy(
                        () ->
                                BaseModelInit.run(
                                        config("init-it-twice", 1, 10_000, Set.of()),
                                        BaseModelInit.Listener.NONE))
                .isInstanceOf(RunAlreadyInitializedException.class)
                .hasMessageContaining("run 'init-it-twice' already has a version 0")
                .hasMessageContaining("pick a new run name");
        try (ModelChannel channel = channel("init-it-twice");
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), WAIT)) {
            assertThat(reader.manifests())
                    .singleElement()
                    .extracting(m -> m.getArtifact().getSha256())
                    .isEqualTo(first.manifest().getArtifact().getSha256());
        }
    }

    @Test
    void shouldRefuseARunWithNoTransitionsOfTheChosenEnvs() {
        assertThatThrownBy(
                        () ->
                                BaseModelInit.run(
                                        config("init-it-none", 1, 10_000, Set.of("airline")),
                                        BaseModelInit.Listener.NONE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no transitions to pretrain on")
                .hasMessageContaining("[airline]");
    }
}
