package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.RewardedGroup;
import dev.rwml.worldmodel.prompt.SftTarget;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import dev.rwml.worldmodel.train.GrpoConfig;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SftPairsTest {

    /** A tau2 tool result far longer than a small model's context. */
    static final String LONG_TOOL_RESULT =
            "{\"orders\": ["
                    + "{\"order_id\": \"#W1\", \"status\": \"delivered\"}, ".repeat(200)
                    + "]}";

    @Test
    void shouldKeepAPairThatFitsWholeWithTheSharedTarget() {
        try (WorldModelTokenizer t = tokenizer()) {
            final SftPairs.Fitted f = SftPairs.fit(t, new int[] {1, 2, 3}, "Nothing happens.", 512);
            assertThat(f.reason()).isNull();
            assertThat(f.truncatedTokens()).isZero();
            assertThat(f.pair().completion()).containsExactly(SftTarget.ids(t, "Nothing happens."));
        }
    }

    @Test
    void shouldCutTheTailOfAnOverLongToolResultToFitTheContext() {
        try (WorldModelTokenizer t = tokenizer()) {
            final int[] full = SftTarget.ids(t, LONG_TOOL_RESULT);
            assertThat(full.length).as("longer than the tiny model's context").isGreaterThan(256);
            final SftPairs.Fitted f = SftPairs.fit(t, new int[50], LONG_TOOL_RESULT, 128);
            assertThat(f.reason()).isNull();
            assertThat(f.pair().prompt().length + f.pair().completion().length).isEqualTo(128);
            assertThat(f.pair().completion()).containsExactly(Arrays.copyOf(full, 78));
            assertThat(f.truncatedTokens()).isEqualTo(full.length - 78);
        }
    }

    @Test
    void shouldGiveTheReasonWhenThePromptLeavesNoRoomForTheTarget() {
        try (WorldModelTokenizer t = tokenizer()) {
            final SftPairs.Fitted f = SftPairs.fit(t, new int[127], LONG_TOOL_RESULT, 128);
            assertThat(f.pair()).isNull();
            assertThat(f.reason())
                    .contains("context of 128 tokens")
                    .contains("the prompt has 127")
                    .contains("prompt.max.tokens");
        }
    }

    @Test
    void shouldGiveEachRecipeItsDocumentedCombinationAndLetExplicitSettingsOverrideIt() {
        final TrainerConfig grpo = TrainerConfig.defaults("r");
        assertThat(grpo.recipe()).isEqualTo(LossRecipe.GRPO);
        assertThat(grpo.aggregation()).isEqualTo(GrpoConfig.Aggregation.SEQUENCE_MEAN);
        final TrainerConfig dapo = grpo.with(Map.of("recipe", "dapo"));
        assertThat(dapo.aggregation()).isEqualTo(GrpoConfig.Aggregation.TOKEN_MEAN);
        assertThat(dapo.clipEpsilonLow()).isEqualTo(0.2);
        assertThat(dapo.clipEpsilonHigh()).isEqualTo(0.28);
        assertThat(dapo.klCoefficient()).isZero();
        final TrainerConfig dr = grpo.with(Map.of("recipe", "dr-grpo", "kl.coefficient", "0"));
        assertThat(dr.aggregation()).isEqualTo(GrpoConfig.Aggregation.SEQUENCE_SUM_CONSTANT);
        assertThat(dr.klCoefficient()).as("given explicitly").isZero();
        assertThat(dr.recipe().loss().normaliseByStd()).isFalse();
        assertThat(dr.asMap()).containsEntry("loss.aggregation", "sequence-sum");
        assertThatThrownBy(() -> grpo.with(Map.of("loss.aggregation", "mean")))
                .hasMessageContaining("loss.aggregation");
        assertThatThrownBy(() -> grpo.with(Map.of("recipe", "ppo"))).hasMessageContaining("dapo");
    }

    @Test
    void shouldStartRlWithFreshMomentsUnlessResumingItsOwnVersionOrToldToContinue() {
        final TrainerConfig fresh = TrainerConfig.defaults("r");
        assertThat(fresh.freshOptimizer()).isTrue();
        assertThat(fresh.warmupSteps()).isEqualTo(10);
        assertThat(WorldModelPolicyTrainer.resumesOptimizer(fresh, false)).isFalse();
        assertThat(WorldModelPolicyTrainer.resumesOptimizer(fresh, true)).isTrue();
        final TrainerConfig resume = fresh.with(Map.of("optimizer.fresh", "false"));
        assertThat(WorldModelPolicyTrainer.resumesOptimizer(resume, false)).isTrue();
    }

    @Test
    void shouldStopWhenTheRewardStagesAdvantageModeIsNotTheRecipes() {
        // rewards 1, 0, 1, 0 with advantages +-1: (r - mean) / std, the grpo mode
        final RewardedGroup g = Groups.group("t/0/0", 0, 4, 300);
        WorldModelPolicyTrainer.checkAdvantageMode(g, LossRecipe.GRPO);
        WorldModelPolicyTrainer.checkAdvantageMode(g, LossRecipe.DAPO);
        assertThatThrownBy(() -> WorldModelPolicyTrainer.checkAdvantageMode(g, LossRecipe.DR_GRPO))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("advantage=dr-grpo");
    }

    private static WorldModelTokenizer tokenizer() {
        return WorldModelTokenizer.fromJson(TrainerFixture.tokenizerJson());
    }
}
