package dev.rwml.scoring.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.SimilarityScorer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The real all-MiniLM-L6-v2 vectors on ALFWorld texts under the paper's 0.8 threshold. */
class MiniLmEmbedderTest {

    static final String FRIDGE =
            "You open the fridge 1. The fridge 1 is open. In it, you see a apple 2.";

    private static MiniLmEmbedder model;
    private static SimilarityScorer scorer;

    @BeforeAll
    static void loadModel() {
        model = new MiniLmEmbedder();
        scorer = new SimilarityScorer(model);
    }

    private static double[] scores(final String observed, final String... predictions) {
        return scorer.similarities(
                RewardSpec.cosine(RewardSpec.TEXT_COSINE_THRESHOLD),
                observed,
                Arrays.asList(predictions));
    }

    @Test
    void shouldScoreZeroForAPredictionTheTokenizerReducesToNothing() {
        // Control and format characters survive String.isBlank but not the BERT tokenizer, which
        // then refuses the text; the scorer must treat such a prediction as empty, not fail.
        final double[] s = scores(FRIDGE, "\u0001\u200b\u0002", "", FRIDGE);
        assertThat(s[0]).isZero();
        assertThat(s[1]).isZero();
        assertThat(s[2]).isGreaterThan(0.99);
    }

    @Test
    void shouldEmbedInto384Dimensions() {
        final List<float[]> vectors = model.embedAll(List.of(FRIDGE, "Nothing happens."));
        assertThat(vectors).hasSize(2);
        assertThat(vectors.get(0)).hasSize(384);
    }

    @Test
    void shouldPassAParaphrase() {
        final double[] s =
                scores(FRIDGE, "You open the fridge 1. It is open now. Inside you see an apple 2.");
        assertThat(s[0]).isGreaterThan(0.8);
        assertThat(RewardSpec.cosine(0.8).reward(s[0])).isEqualTo(1.0);
    }

    @Test
    void shouldFailADifferentObservation() {
        final double[] s =
                scores(
                        FRIDGE,
                        "You arrive at countertop 1. On the countertop 1, you see a bread 1, a"
                                + " knife 2, and a mug 1.");
        assertThat(s[0]).isLessThan(0.8);
    }

    @Test
    void shouldFailNothingHappensAgainstAnArrivalText() {
        final double[] s =
                scores("You arrive at drawer 2. The drawer 2 is closed.", "Nothing happens.");
        assertThat(s[0]).isLessThan(0.5);
    }

    @Test
    void shouldScoreAnIdenticalPredictionAsOneAndAMissingOneAsZero() {
        final double[] s = scores(FRIDGE, FRIDGE, null);
        assertThat(s[0]).isCloseTo(1.0, within(1e-4));
        assertThat(s[1]).isZero();
    }
}
