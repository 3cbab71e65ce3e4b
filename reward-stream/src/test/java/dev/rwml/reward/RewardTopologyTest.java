package dev.rwml.reward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.Difficulty;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.runtime.Meters;
import dev.rwml.runtime.StageName;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.embed.MiniLmEmbedder;
import dev.rwml.scoring.group.SubsamplePolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RewardTopologyTest extends RewardTopologyHarness {

    private static final String REGISTRY = "mock://reward-topology-test";
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final long CLOSED = WINDOW.plus(GRACE).toMillis() + 1;

    private static CachingEmbedder embedder;

    private TestInputTopic<byte[], byte[]> rawPredictions;

    @BeforeAll
    static void loadModel() {
        embedder = new CachingEmbedder(new MiniLmEmbedder(), 1000);
    }

    @AfterEach
    void dropRegistry() {
        MockSchemaRegistry.dropScope("reward-topology-test");
    }

    private void start(final Set<String> envs) {
        final RewardConfig config =
                RewardConfig.defaults("r1", "unused:9092", REGISTRY)
                        .with(
                                Map.of(
                                        "source.run", "r0",
                                        "envs", String.join(",", envs),
                                        "join.window", WINDOW.toString(),
                                        "join.grace", GRACE.toString()));
        startTopology(config, RewardApp.registryConfig(config), embedder);
        rawPredictions =
                driver.createInputTopic(
                        "rwml.r0.predictions",
                        new ByteArraySerializer(),
                        new ByteArraySerializer());
    }

    private static Instant at(final long millis) {
        return Instant.ofEpochMilli(1_000_000 + millis);
    }

    @Test
    void shouldRewardAPredictionGroupThatMatchesItsTransition() {
        start(Set.of());
        pipeTransition("alfworld/e1/0", at(0));
        predictions.pipeInput(
                "alfworld/e1/0",
                Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE_PARAPHRASE, Fixtures.NOTHING, null),
                at(2_000));

        final List<TestRecord<String, RewardedGroup>> out = rewards.readRecordsToList();
        assertThat(out).hasSize(1);
        final RewardedGroup group = out.get(0).value();
        assertThat(out.get(0).key()).isEqualTo("alfworld/e1/0");
        assertThat(group.getRun()).isEqualTo("r1");
        assertThat(group.getObservedNextState()).isEqualTo(Fixtures.FRIDGE);
        assertThat(group.getSamples())
                .extracting(RewardedSample::getReward)
                .containsExactly(1.0, 0.0, 0.0);
        assertThat(group.getSamples().get(0).getAdvantage()).isPositive();
        assertThat(group.getSamples().get(2).getSimilarity()).isZero();
        // The paraphrase (cos about 0.91) passes the paper's data-stage 0.9: too easy, so the
        // group is kept only when its draw falls under the keep probability.
        assertThat(group.getDifficulty()).isEqualTo(Difficulty.EASY);
        assertThat(group.getKept())
                .isEqualTo(
                        SubsamplePolicy.unitHash("alfworld/e1/0", 0)
                                < SubsamplePolicy.PAPER_EASY_KEEP_PROBABILITY);
        assertThat(group.getRewardSpec().getMethod()).isEqualTo("embedding-cosine");
        assertThat(group.getRewardSpec().getEmbeddingModel()).isEqualTo(MiniLmEmbedder.MODEL_NAME);
        assertThat(group.getRewardSpec().getThreshold()).isEqualTo(0.8);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldMatchATransitionThatArrivesAfterItsPrediction() {
        start(Set.of());
        predictions.pipeInput(
                "alfworld/e1/0", Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE), at(0));
        pipeTransition("alfworld/e1/0", at(30_000));

        assertThat(rewards.readValuesToList())
                .singleElement()
                .satisfies(g -> assertThat(g.getDifficulty()).isEqualTo(Difficulty.EASY));
    }

    @Test
    void shouldDeadLetterAPredictionWithNoTransitionOnceTheWindowCloses() {
        start(Set.of());
        final PredictionGroup orphan = Fixtures.group("alfworld/e9/4", Fixtures.FRIDGE);
        predictions.pipeInput("alfworld/e9/4", orphan, at(0));
        assertThat(deadLetters.isEmpty()).isTrue();

        // Unrelated records move stream time past the orphan's window and grace.
        pipeTransition("alfworld/e2/0", at(CLOSED));
        predictions.pipeInput(
                "alfworld/e2/0", Fixtures.group("alfworld/e2/0", Fixtures.FRIDGE), at(CLOSED));

        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(reason(letters.get(0))).isEqualTo(RewardTopology.NO_TRANSITION);
        final DeadLetter letter = letters.get(0).value();
        assertThat(new String(letters.get(0).key(), StandardCharsets.UTF_8))
                .isEqualTo("alfworld/e9/4");
        assertThat(letter.getStage()).isEqualTo(StageName.REWARD.id());
        assertThat(letter.getSourceTopic()).isEqualTo("rwml.r0.predictions");
        assertThat(letter.getErrorMessage()).startsWith("no transition within window");
        final byte[] original = new byte[letter.getOriginalValue().remaining()];
        letter.getOriginalValue().duplicate().get(original);
        assertThat(
                        EventSerdes.forValue(
                                        PredictionGroup.class,
                                        RewardApp.registryConfig(
                                                RewardConfig.defaults("r1", "x:1", REGISTRY)))
                                .deserializer()
                                .deserialize("rwml.r0.predictions", original))
                .isEqualTo(orphan);
        assertThat(rewards.readValuesToList()).hasSize(1);
        assertThat(Meters.total(meters.find("rwml.reward.join.misses"))).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterAPredictionThatArrivesAfterItsWindowClosed() {
        start(Set.of());
        pipeTransition("alfworld/e1/0", at(0));
        predictions.pipeInput(
                "alfworld/e3/0",
                Fixtures.group("alfworld/e3/0", Fixtures.FRIDGE),
                at(CLOSED + 5_000));

        predictions.pipeInput(
                "alfworld/e1/0", Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE), at(0));

        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(reason(letters.get(0))).isEqualTo(RewardTopology.LATE);
        assertThat(new String(letters.get(0).key(), StandardCharsets.UTF_8))
                .isEqualTo("alfworld/e1/0");
        assertThat(letters.get(0).value().getSourceOffset()).isGreaterThanOrEqualTo(0);
        assertThat(rewards.isEmpty()).isTrue();
        assertThat(Meters.total(meters.find("rwml.reward.late"))).isEqualTo(1);
    }

    @Test
    void shouldCountUndecodableBytesAsDeadLettersAndKeepRewarding() {
        // TopologyTestDriver drops a deserialization handler's dead-letter records; the handler's
        // output is checked in DeadLetterHandlersTest and on a real broker in RewardStreamIT.
        start(Set.of());
        rawPredictions.pipeInput(
                "alfworld/bad/0".getBytes(StandardCharsets.UTF_8), new byte[] {42, 1, 2}, at(0));
        pipeTransition("alfworld/e1/0", at(0));
        predictions.pipeInput(
                "alfworld/e1/0", Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE), at(1));

        assertThat(rewards.readValuesToList()).hasSize(1);
        assertThat(Meters.total(meters.find("rwml.reward.dead.letters"))).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterAnInvalidGroupAndKeepRewarding() {
        start(Set.of());
        pipeTransition("alfworld/e1/0", at(0));
        pipeTransition("alfworld/e1/1", at(0));
        predictions.pipeInput("alfworld/e1/0", Fixtures.group("alfworld/e1/0"), at(1));
        predictions.pipeInput(
                "alfworld/e1/1", Fixtures.group("alfworld/e1/1", Fixtures.FRIDGE), at(1));

        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(reason(letters.get(0))).isEqualTo(DeadLetters.PROCESSING);
        assertThat(letters.get(0).value().getErrorMessage()).contains("has no samples");
        assertThat(letters.get(0).value().getSourceTopic()).isEqualTo("rwml.r0.predictions");
        assertThat(rewards.readValuesToList()).hasSize(1);
    }

    /** The join would pair the group with both records: the second is refused instead. */
    @Test
    void shouldRewardAGroupOnceWhenItsTransitionIdCameTwice() {
        start(Set.of());
        pipeTransition("alfworld/e1/0", at(0));
        pipeTransition("alfworld/e1/0", at(1));
        predictions.pipeInput(
                "alfworld/e1/0", Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE, "x"), at(2));

        assertThat(rewards.readValuesToList()).hasSize(1);
        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).value().getErrorMessage())
                .contains("duplicate transition id alfworld/e1/0: first read at partition 0");
        assertThat(letters.get(0).value().getSourceTopic()).isEqualTo("rwml.transitions");
    }

    /** A group of another size than the G it records would bias its advantages. */
    @Test
    void shouldDeadLetterAGroupWithMoreSamplesThanItsG() {
        start(Set.of());
        pipeTransition("alfworld/e1/0", at(0));
        pipeTransition("alfworld/e1/1", at(0));
        final PredictionGroup repeated = Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE, "x");
        repeated.getSamples().add(repeated.getSamples().get(0));
        predictions.pipeInput("alfworld/e1/0", repeated, at(1));
        predictions.pipeInput(
                "alfworld/e1/1", Fixtures.group("alfworld/e1/1", Fixtures.FRIDGE, "x"), at(1));

        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).value().getErrorMessage())
                .contains(
                        "prediction group alfworld/e1/0 has 3 samples but was sampled with G = 2");
        assertThat(rewards.readValuesToList()).hasSize(1);
    }

    @Test
    void shouldIgnoreTransitionsOfEnvironmentsTheRunDoesNotUse() {
        start(Set.of("alfworld"));
        transitions.pipeInput(
                "retail/e1/0",
                Fixtures.transition("retail/e1/0", "retail", Fixtures.FRIDGE),
                at(0));
        predictions.pipeInput("retail/e1/0", Fixtures.group("retail/e1/0", Fixtures.FRIDGE), at(1));
        pipeTransition("alfworld/e1/0", at(CLOSED + 1));

        assertThat(rewards.isEmpty()).isTrue();
        assertThat(deadLetters.readRecordsToList())
                .singleElement()
                .satisfies(l -> assertThat(reason(l)).isEqualTo(RewardTopology.NO_TRANSITION));
        assertThat(Meters.total(meters.find("rwml.reward.transitions.filtered"))).isEqualTo(1);
    }
}
