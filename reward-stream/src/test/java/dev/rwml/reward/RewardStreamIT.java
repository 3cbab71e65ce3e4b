package dev.rwml.reward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.Difficulty;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.Fixtures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reward stage and a rescore on the embedded broker and Apicurio registry: both run once,
 * before the tests, then each behaviour is checked by a test of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RewardStreamIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final int GROUPS = 5;

    // What the two stages wrote, for the tests.
    private String suffix;
    private String run;
    private String rescoreRun;
    private List<RewardedGroup> rewards;
    private List<ConsumerRecord<byte[], byte[]>> letters;
    private long embedderLoads;
    private List<RewardedGroup> rescored;
    private boolean rescoreConfigured;

    private RewardConfig config(final String run, final Path stateDir) {
        return RewardConfig.defaults(run, KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl())
                .with(
                        Map.of(
                                "join.window", "PT1M",
                                "join.grace", "PT5S",
                                "state.dir", stateDir.toString(),
                                "streams.commit.interval.ms", "100"));
    }

    /**
     * Runs the reward stage over transitions, prediction groups and one undecodable record, then
     * the rescore of what it rewarded into a new run with another reward spec.
     */
    @BeforeAll
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void rewardPredictionsAndRescoreThemIntoANewRun() throws Exception {
        suffix = UUID.randomUUID().toString().substring(0, 8);
        run = "it-" + suffix;
        rescoreRun = "it-rescore-" + suffix;
        final Path state = Files.createTempDirectory("rwml-reward-it");

        try (RewardStage stage = RewardApp.start(config(run, state), new SimpleMeterRegistry())) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> stage.state() == KafkaStreams.State.RUNNING);
            produceInputs(run, suffix);

            rewards =
                    awaitValues(
                            TopicCatalog.defaults().run(run).rewards().name(),
                            GROUPS,
                            RewardedGroup.class);
            letters = awaitRecords(TopicCatalog.defaults().run(run).deadLetters().name(), 1);
            embedderLoads = stage.embedder().stats().loadCount();
        }

        // What rwml rescore starts: a new run's reward stage over another run's predictions.
        try (RewardStage rescore =
                RewardApp.start(
                        config(rescoreRun, state)
                                .with(Map.of("source.run", run, "reward.spec", "TEXT=exact")),
                        new SimpleMeterRegistry())) {
            rescored =
                    awaitValues(
                            TopicCatalog.defaults().run(rescoreRun).rewards().name(),
                            GROUPS,
                            RewardedGroup.class);
            rescoreConfigured = rescore.config().isRescore();
        }
    }

    @Test
    void shouldRewardEachPredictionGroupOnce() {
        assertThat(rewards)
                .extracting(RewardedGroup::getTransitionId)
                .containsExactlyInAnyOrderElementsOf(ids(suffix));
    }

    @Test
    void shouldRewardAParaphraseOneAndAnotherStateZeroByEmbeddingCosine() {
        for (final RewardedGroup group : rewards) {
            assertThat(group.getRun()).isEqualTo(run);
            assertThat(group.getSamples())
                    .extracting(RewardedSample::getReward)
                    .containsExactly(1.0, 0.0);
            assertThat(group.getRewardSpec().getMethod()).isEqualTo("embedding-cosine");
        }
    }

    @Test
    void shouldJudgeAGroupWithAParaphraseEasy() {
        for (final RewardedGroup group : rewards) {
            // One sample is a paraphrase (cos about 0.91, over the data-stage 0.9): too easy.
            assertThat(group.getDifficulty()).isEqualTo(Difficulty.EASY);
        }
    }

    @Test
    void shouldDeadLetterAnUndecodablePredictionWithItsReasonAndSource() {
        assertThat(
                        new String(
                                letters.get(0)
                                        .headers()
                                        .lastHeader(DeadLetters.REASON_HEADER)
                                        .value(),
                                StandardCharsets.UTF_8))
                .isEqualTo("WRONG_MAGIC_BYTE");
        assertThat(decode(letters.get(0), DeadLetter.class).getSourceTopic())
                .isEqualTo("rwml." + run + ".predictions");
    }

    @Test
    void shouldLoadTheEmbedderAtMostOncePerGroup() {
        assertThat(embedderLoads).isLessThanOrEqualTo(GROUPS);
    }

    @Test
    void shouldRescoreEachRewardedGroupIntoTheNewRun() {
        assertThat(rescored)
                .extracting(RewardedGroup::getTransitionId)
                .containsExactlyInAnyOrderElementsOf(ids(suffix));
    }

    @Test
    void shouldRescoreByExactMatchIntoTheNewRun() {
        for (final RewardedGroup group : rescored) {
            assertThat(group.getRun()).isEqualTo(rescoreRun);
            assertThat(group.getRewardSpec().getMethod()).isEqualTo("exact-match");
            // The paraphrase passed the cosine spec but is not an exact match.
            assertThat(group.getSamples())
                    .extracting(RewardedSample::getReward)
                    .containsExactly(0.0, 0.0);
        }
    }

    @Test
    void shouldJudgeTheRescoredGroupHard() {
        for (final RewardedGroup group : rescored) {
            assertThat(group.getDifficulty()).isEqualTo(Difficulty.HARD);
        }
    }

    @Test
    void shouldRunTheRescoreAsARescore() {
        assertThat(rescoreConfigured).isTrue();
    }

    private static List<String> ids(final String suffix) {
        final List<String> ids = new ArrayList<>();
        for (int i = 0; i < GROUPS; i++) {
            ids.add("alfworld/" + suffix + "/" + i);
        }
        return ids;
    }

    private void produceInputs(final String run, final String suffix) {
        final Map<String, Object> registry =
                Map.of("schema.registry.url", KAFKA.schemaRegistryUrl());
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            final var transitions = EventSerdes.forValue(Transition.class, registry).serializer();
            final var predictions =
                    EventSerdes.forValue(PredictionGroup.class, registry).serializer();
            final String predictionsTopic = "rwml." + run + ".predictions";
            for (final String id : ids(suffix)) {
                final byte[] key = id.getBytes(StandardCharsets.UTF_8);
                producer.send(
                        new ProducerRecord<>(
                                TopicCatalog.TRANSITIONS,
                                key,
                                transitions.serialize(
                                        TopicCatalog.TRANSITIONS,
                                        Fixtures.transition(id, "alfworld", Fixtures.FRIDGE))));
                producer.send(
                        new ProducerRecord<>(
                                predictionsTopic,
                                key,
                                predictions.serialize(
                                        predictionsTopic,
                                        Fixtures.group(
                                                id,
                                                Fixtures.FRIDGE_PARAPHRASE,
                                                Fixtures.NOTHING))));
            }
            producer.send(
                    new ProducerRecord<>(
                            predictionsTopic,
                            "alfworld/garbage/0".getBytes(StandardCharsets.UTF_8),
                            new byte[] {42, 0, 0, 0, 1, 2}));
            producer.flush();
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> awaitRecords(final String topic, final int count) {
        final Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reward-it-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(120))
                    .until(
                            () -> {
                                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                                return records.size() >= count;
                            });
        }
        assertThat(records).hasSize(count);
        return records;
    }

    private <T extends org.apache.avro.specific.SpecificRecord> List<T> awaitValues(
            final String topic, final int count, final Class<T> type) {
        final List<T> values = new ArrayList<>();
        for (final ConsumerRecord<byte[], byte[]> record : awaitRecords(topic, count)) {
            values.add(decode(record, type));
        }
        return values;
    }

    private <T extends org.apache.avro.specific.SpecificRecord> T decode(
            final ConsumerRecord<byte[], byte[]> record, final Class<T> type) {
        return EventSerdes.forValue(type, Map.of("schema.registry.url", KAFKA.schemaRegistryUrl()))
                .deserializer()
                .deserialize(record.topic(), record.value());
    }
}
