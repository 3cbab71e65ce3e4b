package dev.rwml.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.Difficulty;
import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.AngleEmbedder;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.serve.RejectedTransitionException;
import java.time.Clock;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DifficultyJudgeTest {

    /** The observed next state of every transition here; predictions are angles from it. */
    private static final String OBSERVED = "at:0";

    /** Above the data-stage threshold (cos > 0.9): counts towards easy. */
    private static final String NEAR = AngleEmbedder.withCosine(0.95);

    /** Rewarded at the training threshold (cos > 0.8) but not easy. */
    private static final String CLOSE = AngleEmbedder.withCosine(0.85);

    /** Neither. */
    private static final String FAR = AngleEmbedder.withCosine(0.1);

    private static FilterConfig config(final Map<String, String> settings) {
        return FilterConfig.defaults("r1", "unused:9092", "mock://difficulty-judge-test")
                .with(settings);
    }

    private static DifficultyJudge judge(final FilterConfig config, final ScriptedModel model) {
        return new DifficultyJudge(
                config, model, new SimilarityScorer(new AngleEmbedder()), Clock.systemUTC());
    }

    private static Transition transition(final String id) {
        return Fixtures.transition(id, "alfworld", OBSERVED);
    }

    private static List<String> tries(final int near, final int close, final int far) {
        final List<String> out = new java.util.ArrayList<>();
        out.addAll(Collections.nCopies(near, NEAR));
        out.addAll(Collections.nCopies(close, CLOSE));
        out.addAll(Collections.nCopies(far, FAR));
        return out;
    }

    @Test
    void shouldJudgeATransitionEasyWhenOneOfTenTriesPassesTheDataStageThreshold() {
        final ScriptedModel model = new ScriptedModel(tries(1, 0, 9));
        final TransitionDifficulty verdict =
                judge(config(Map.of()), model).judge("alfworld/e1/0", transition("alfworld/e1/0"));

        assertThat(model.sampledTries).isEqualTo(10);
        assertThat(verdict.getTries()).isEqualTo(10);
        assertThat(verdict.getEasyPasses()).isEqualTo(1);
        assertThat(verdict.getRewardPasses()).isEqualTo(1);
        assertThat(verdict.getDifficulty()).isEqualTo(Difficulty.EASY);
        assertThat(verdict.getEasyThreshold()).isEqualTo(0.9);
        assertThat(verdict.getMaxSimilarity())
                .isCloseTo(0.95, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(verdict.getFilterRun()).isEqualTo("r1");
        assertThat(verdict.getFilterVersion()).isZero();
    }

    @Test
    void shouldKeepATransitionTheFilterModelPredictsOnlyLooselyAsInformative() {
        final TransitionDifficulty verdict =
                judge(config(Map.of()), new ScriptedModel(tries(0, 3, 7)))
                        .judge("alfworld/e1/0", transition("alfworld/e1/0"));

        assertThat(verdict.getEasyPasses()).isZero();
        assertThat(verdict.getRewardPasses()).isEqualTo(3);
        assertThat(verdict.getDifficulty()).isEqualTo(Difficulty.INFORMATIVE);
        assertThat(verdict.getKept()).isTrue();
        assertThat(verdict.getKeepReason()).isEqualTo("informative");
    }

    @Test
    void shouldKeepOrDropTransitionsNoTryPassedAsHardKeepSays() {
        final ScriptedModel model = new ScriptedModel(tries(0, 0, 10));
        assertThat(
                        judge(config(Map.of()), model)
                                .judge("alfworld/e1/0", transition("alfworld/e1/0")))
                .satisfies(
                        v -> {
                            assertThat(v.getDifficulty()).isEqualTo(Difficulty.HARD);
                            assertThat(v.getKeepReason()).isEqualTo("hard-kept");
                        });
        assertThat(
                        judge(config(Map.of("hard.keep", "false")), model)
                                .judge("alfworld/e1/0", transition("alfworld/e1/0"))
                                .getKept())
                .isFalse();
    }

    @Test
    void shouldNeedAsManyPassesAsEasyMinPassesSays() {
        final ScriptedModel model = new ScriptedModel(tries(2, 0, 8));
        assertThat(
                        judge(config(Map.of("easy.min.passes", "3")), model)
                                .judge("alfworld/e1/0", transition("alfworld/e1/0"))
                                .getDifficulty())
                .isEqualTo(Difficulty.INFORMATIVE);
        assertThat(
                        judge(config(Map.of("easy.min.passes", "2")), model)
                                .judge("alfworld/e1/0", transition("alfworld/e1/0"))
                                .getDifficulty())
                .isEqualTo(Difficulty.EASY);
    }

    @Test
    void shouldKeepEasyTransitionsAtTheConfiguredRateAndTheSameOnesEveryTime() {
        final FilterConfig config = config(Map.of("easy.keep.probability", "0.25", "tries", "2"));
        final DifficultyJudge judge = judge(config, new ScriptedModel(tries(1, 0, 1)));
        final int n = 4000;
        int kept = 0;
        int keptAgain = 0;
        int keptWithAnotherSeed = 0;
        final DifficultyJudge reseeded =
                judge(
                        config.with(Map.of("subsample.seed", "7")),
                        new ScriptedModel(tries(1, 0, 1)));
        for (int i = 0; i < n; i++) {
            final String id = "alfworld/e" + i + "/0";
            final boolean first = judge.judge(id, transition(id)).getKept();
            kept += first ? 1 : 0;
            keptAgain += first && judge.judge(id, transition(id)).getKept() ? 1 : 0;
            keptWithAnotherSeed += first && reseeded.judge(id, transition(id)).getKept() ? 1 : 0;
        }
        // binomial(4000, 0.25): mean 1000, sd 27.4; 4 sd either side
        assertThat(kept).isBetween(890, 1110);
        assertThat(keptAgain).isEqualTo(kept);
        // another seed draws another subsample: about a quarter of the first one's
        assertThat(keptWithAnotherSeed).isBetween(180, 320);
    }

    @Test
    void shouldRejectATransitionWhoseKeyDiffersFromItsId() {
        assertThatThrownBy(
                        () ->
                                judge(config(Map.of()), new ScriptedModel(tries(1, 0, 0)))
                                        .judge("alfworld/other/0", transition("alfworld/e1/0")))
                .isInstanceOf(RejectedTransitionException.class)
                .hasMessageContaining("differs from transitionId");
    }

    @Test
    void shouldRejectANextObservationLongerThanMaxTextChars() {
        final Transition longOne = transition("alfworld/e1/0");
        longOne.setNextObservation("x".repeat(101));
        assertThatThrownBy(
                        () ->
                                judge(
                                                config(Map.of("max.text.chars", "100")),
                                                new ScriptedModel(tries(1, 0, 0)))
                                        .judge("alfworld/e1/0", longOne))
                .isInstanceOf(RejectedTransitionException.class)
                .hasMessageContaining("101 characters, more than max.text.chars=100");
    }
}
