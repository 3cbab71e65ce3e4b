package dev.rwml.reward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.events.NextStateKind;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.events.Transition;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.TextEmbedder;
import dev.rwml.scoring.group.AdvantageMode;
import dev.rwml.scoring.group.SubsamplePolicy;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupRewarderTest {

    private static final String ORDER =
            "{\"order_id\": \"#W1\", \"status\": \"delivered\", \"total\": 12.5}";
    private static final String OTHER_ORDER =
            "{\"status\": \"pending\", \"order_id\": \"#W9\", \"total\": 3}";

    /** Fails the test if cosine scoring is asked for. */
    private static final TextEmbedder NO_MODEL =
            new TextEmbedder() {
                @Override
                public String modelName() {
                    return "none";
                }

                @Override
                public List<float[]> embedAll(final List<String> texts) {
                    throw new AssertionError("tool results must not be embedded");
                }
            };

    private final RewardMetrics metrics = new RewardMetrics(new SimpleMeterRegistry(), "r1");

    private RewardedGroup rewardEasyGroup(final double easyKeepRate) {
        return rewarder(
                        new SubsamplePolicy(
                                easyKeepRate, true, 0, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1))
                .reward(
                        Fixtures.group("retail/e1/0", OTHER_ORDER),
                        toolResult("retail/e1/0", ORDER));
    }

    private GroupRewarder rewarder(final SubsamplePolicy subsample) {
        return new GroupRewarder(
                "r1",
                RewardSpecTable.paperDefaults(),
                new SimilarityScorer(NO_MODEL),
                AdvantageMode.DR_GRPO,
                0,
                subsample,
                200,
                metrics,
                Clock.systemUTC());
    }

    private static Transition toolResult(final String id, final String output) {
        final Transition t = Fixtures.transition(id, "retail", output);
        t.setNextKind(NextStateKind.TOOL_RESULT);
        return t;
    }

    @Test
    void shouldScoreToolResultsWithMaskedRouge() {
        final RewardedGroup group =
                rewarder(SubsamplePolicy.paperDefaults())
                        .reward(
                                Fixtures.group(
                                        "retail/e1/0", OTHER_ORDER, "Error: order not found", null),
                                toolResult("retail/e1/0", ORDER));

        assertThat(group.getRewardSpec().getMethod()).isEqualTo("rouge-l");
        assertThat(group.getRewardSpec().getEmbeddingModel()).isNull();
        assertThat(group.getSamples())
                .extracting(RewardedSample::getSimilarity)
                .containsExactly(1.0, 0.0, 0.0);
        assertThat(group.getSamples().get(0).getAdvantage()).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(group.getSamples().get(1).getAdvantage()).isCloseTo(-1.0 / 3, within(1e-12));
        assertThat(group.getStats().getPassRate()).isEqualTo(1.0 / 3);
    }

    @Test
    void shouldEmitDroppedEasyGroupsWithTheirReason() {
        final RewardedGroup dropped = rewardEasyGroup(0.0);
        final RewardedGroup kept = rewardEasyGroup(1.0);

        assertThat(dropped.getKept()).isFalse();
        assertThat(dropped.getKeepReason()).isEqualTo("easy-dropped");
        assertThat(kept.getKept()).isTrue();
        assertThat(kept.getKeepReason()).isEqualTo("easy-sampled");
        assertThat(metrics.groupCount()).isEqualTo(2);
    }

    @Test
    void shouldRejectOversizedStatesAndMismatchedIds() {
        final GroupRewarder rewarder = rewarder(SubsamplePolicy.paperDefaults());
        assertThatThrownBy(
                        () ->
                                rewarder.reward(
                                        Fixtures.group("retail/e1/0", "x".repeat(201)),
                                        toolResult("retail/e1/0", ORDER)))
                .isInstanceOf(InvalidGroupException.class)
                .hasMessageContaining("max.text.chars=200");
        assertThatThrownBy(
                        () ->
                                rewarder.reward(
                                        Fixtures.group("retail/e1/0", ORDER),
                                        toolResult("retail/e2/0", ORDER)))
                .hasMessageContaining("keys and transitionId fields must agree");
    }

    @Test
    void shouldRejectBehaviourLogProbsThatAreInfiniteNaNOrPositive() {
        final GroupRewarder rewarder = rewarder(SubsamplePolicy.paperDefaults());
        for (final float bad :
                new float[] {Float.NEGATIVE_INFINITY, Float.NaN, Float.POSITIVE_INFINITY, 0.5f}) {
            final var group = Fixtures.group("retail/e1/0", ORDER);
            group.getSamples().get(0).setLogprobs(List.of(-0.5f, bad, -1f));
            assertThatThrownBy(() -> rewarder.reward(group, toolResult("retail/e1/0", ORDER)))
                    .as("log-prob %s", bad)
                    .isInstanceOf(InvalidGroupException.class)
                    .hasMessageContaining("token 1")
                    .hasMessageContaining(Float.toString(bad));
        }
    }
}
