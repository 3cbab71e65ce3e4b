package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.scoring.embed.TextEmbedder;
import dev.rwml.scoring.score.RewardMethod;
import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.generate.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ScoringTest {

    private static final String OBSERVED = "You open the fridge 1. The fridge 1 is open.";

    /** Puts each known text at a chosen angle from the observed state: cosine = the value. */
    private static final class AngleEmbedder implements TextEmbedder {
        private final Map<String, Double> cosines;

        AngleEmbedder(final Map<String, Double> cosines) {
            this.cosines = cosines;
        }

        @Override
        public String modelName() {
            return "angles";
        }

        @Override
        public List<float[]> embedAll(final List<String> texts) {
            final List<float[]> out = new ArrayList<>();
            for (final String t : texts) {
                final double c = t.equals(OBSERVED) ? 1 : cosines.getOrDefault(t, 0.99);
                out.add(new float[] {(float) c, (float) Math.sqrt(1 - c * c)});
            }
            return out;
        }
    }

    private static Transition transition(final NextStateKind kind, final String observed) {
        final Transition t =
                HeldOutSet.generate("alfworld/valid_seen", 1, 7, 0).transitions().get(0);
        return Transition.newBuilder(t).setNextKind(kind).setNextObservation(observed).build();
    }

    private static Sample sample(final String prediction, final Sample.StopReason reason) {
        return new Sample(new int[0], new float[0], "", Optional.ofNullable(prediction), reason);
    }

    /** Samples that closed their next state; null for a malformed one. */
    private static List<Sample> samples(final String... predictions) {
        final List<Sample> out = new ArrayList<>();
        for (final String p : predictions) {
            out.add(sample(p, Sample.StopReason.NEXT_STATE_CLOSED));
        }
        return out;
    }

    @Test
    void shouldPassAtTheTrainingSpecButNotStrictlyBetweenItsThresholdAndNinety() {
        final Scoring scoring =
                new Scoring(
                        RewardSpecTable.parse("TEXT=cosine:0.6"),
                        new SimilarityScorer(
                                new AngleEmbedder(
                                        Map.of("near", 0.95, "close", 0.85, "far", 0.3))));
        final TransitionScore s =
                scoring.score(
                        transition(NextStateKind.TEXT, OBSERVED),
                        samples("near", "close", "far", null),
                        Optional.empty());
        assertThat(s.pass()).as("0.95 and 0.85 beat 0.6").isEqualTo(0.5);
        assertThat(s.strict()).as("only 0.95 beats 0.9").isEqualTo(0.25);
        assertThat(s.exact()).isZero();
        assertThat(s.similarity()).isCloseTo((0.95 + 0.85 + 0.3 + 0) / 4, within(1e-6));
        assertThat(s.kind()).isEqualTo("TEXT");
        assertThat(s.taskType()).isNotEqualTo("-");
        assertThat(s.episodeId()).isNotBlank();
        assertThat(s.transitionId()).contains(s.episodeId());
        assertThat(s.greedyPass()).as("greedy sampling was off").isNaN();
        assertThat(s.greedyStrict()).isNaN();
        assertThat(s.capped()).isZero();
    }

    @Test
    void shouldScoreTheGreedySampleApartAndCountOnlyTheOthersCutAtTheCap() {
        final Scoring scoring =
                new Scoring(
                        RewardSpecTable.parse("TEXT=cosine:0.6"),
                        new SimilarityScorer(
                                new AngleEmbedder(
                                        Map.of("near", 0.95, "close", 0.85, "far", 0.3))));
        final Transition t = transition(NextStateKind.TEXT, OBSERVED);
        final List<Sample> cut =
                List.of(
                        sample("far", Sample.StopReason.NEXT_STATE_CLOSED),
                        sample(null, Sample.StopReason.LENGTH),
                        sample("far", Sample.StopReason.END_OF_TEXT),
                        sample(null, Sample.StopReason.LENGTH));
        final TransitionScore close =
                scoring.score(t, cut, Optional.of(sample("close", Sample.StopReason.LENGTH)));
        assertThat(close.pass()).as("the greedy sample is not one of the samples").isZero();
        assertThat(close.similarity()).isCloseTo(0.3 / 2, within(1e-6));
        assertThat(close.greedyPass()).as("0.85 beats 0.6").isEqualTo(1.0);
        assertThat(close.greedyStrict()).as("0.85 is not above 0.9").isZero();
        assertThat(close.capped()).as("two of four, the greedy one not counted").isEqualTo(0.5);
        final TransitionScore near =
                scoring.score(
                        t, cut, Optional.of(sample("near", Sample.StopReason.NEXT_STATE_CLOSED)));
        assertThat(near.greedyStrict()).isEqualTo(1.0);
        final TransitionScore malformed =
                scoring.score(t, cut, Optional.of(sample(null, Sample.StopReason.LENGTH)));
        assertThat(malformed.greedyPass()).isZero();
        assertThat(malformed.greedyStrict()).isZero();
    }

    @Test
    void shouldMatchExactlyAfterWhitespaceNormalisationOnly() {
        final Scoring scoring =
                new Scoring(
                        RewardSpecTable.paperDefaults(),
                        new SimilarityScorer(
                                new AngleEmbedder(
                                        Map.of(
                                                "  You open the fridge 1.\n The fridge 1  is open. ",
                                                0.99,
                                                "You open the fridge 1. The fridge 1 is open",
                                                0.99,
                                                "you open the fridge 1. the fridge 1 is open.",
                                                0.99))));
        final TransitionScore s =
                scoring.score(
                        transition(NextStateKind.TEXT, OBSERVED),
                        samples(
                                OBSERVED,
                                "  You open the fridge 1.\n The fridge 1  is open. ",
                                "You open the fridge 1. The fridge 1 is open",
                                "you open the fridge 1. the fridge 1 is open."),
                        Optional.empty());
        assertThat(s.exact()).as("spaces differ in the second only").isEqualTo(0.5);
        assertThat(s.strict()).isEqualTo(1.0);
    }

    @Test
    void shouldScoreToolResultsStrictlyOnlyWhenTheRoundedRougeIsFull() {
        final RewardSpec strict = Scoring.strict(RewardSpec.rougeL(0.6));
        assertThat(strict.method()).isEqualTo(RewardMethod.ROUGE_L);
        assertThat(strict.reward(0.8)).isZero();
        assertThat(strict.reward(1.0)).isEqualTo(1.0);
        assertThat(Scoring.strict(RewardSpec.cosine(0.95)).threshold())
                .as("a stricter training spec stays")
                .isEqualTo(0.95);

        final String tool = "{\"order_id\": \"#W1\", \"status\": \"pending\"}";
        final Scoring scoring =
                new Scoring(
                        RewardSpecTable.paperDefaults(),
                        new SimilarityScorer(new AngleEmbedder(Map.of())));
        final TransitionScore s =
                scoring.score(
                        transition(NextStateKind.TOOL_RESULT, tool),
                        samples(
                                "{\"order_id\": \"#W2\", \"status\": \"shipped\"}",
                                "Error: order #W1 not found"),
                        Optional.empty());
        assertThat(s.pass()).as("the same structure with other values passes").isEqualTo(0.5);
        assertThat(s.strict()).isEqualTo(0.5);
        assertThat(s.exact()).isZero();
    }
}
