package dev.rwml.worldmodel.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import org.junit.jupiter.api.Test;

/**
 * Each recipe's loss on one hand-computed batch: two sequences, the first of 3 completion tokens
 * with advantage +1, the second of 2 (one padding position) with advantage -1; every token's ratio
 * to the behaviour policy is 1.25 and its KL exponent {@code ref - logp} is ln 2, so k3 = 2 - ln 2
 * - 1 = 0.306853 per token.
 */
class LossRecipeTest {

    private static final double K3 = 2 - Math.log(2) - 1;

    @Test
    void shouldGiveGrpoTheSequenceMeanOfTheSymmetricallyClippedSurrogatePlusKl() {
        // A > 0: min(1.25, clip(1.25, 0.8, 1.2)) = 1.2; A < 0: min(-1.25, -1.2) = -1.25
        final double first = -1.2 + 0.001 * K3;
        final double second = 1.25 + 0.001 * K3;
        assertThat(loss(GrpoConfig.grpo())).isCloseTo((first + second) / 2, within(1e-5));
    }

    @Test
    void shouldGiveDrGrpoTheTokenSumOverSequencesTimesTheConstantLength() {
        final double sum = 3 * (-1.2 + 0.001 * K3) + 2 * (1.25 + 0.001 * K3);
        assertThat(loss(GrpoConfig.drGrpo(4))).isCloseTo(sum / (2 * 4), within(1e-5));
    }

    @Test
    void shouldGiveDapoTheTokenMeanWithClipHigherAndNoKl() {
        // clip-higher 0.28 leaves the ratio 1.25 unclipped for A > 0: every token is -1.25 * A
        assertThat(loss(GrpoConfig.dapo())).isCloseTo((3 * -1.25 + 2 * 1.25) / 5, within(1e-5));
    }

    @Test
    void shouldClampTheKlExponentAndTheK3ValueSoTheGradientStaysBounded() {
        try (NDManager m = DjlRuntime.newManager()) {
            final NDArray logp = m.create(new float[] {-60f, -1f}, new Shape(1, 2));
            logp.setRequiresGradient(true);
            // ref - logp = 59 (e^59 overflows nothing in double but would weigh 1e25) and -30
            final NDArray ref = m.create(new float[] {-1f, -31f}, new Shape(1, 2));
            final Losses.GrpoTerms terms;
            try (GradientCollector c = DjlRuntime.engine().newGradientCollector()) {
                terms =
                        Losses.grpo(
                                logp,
                                m.ones(new Shape(1, 2)),
                                logp.stopGradient(),
                                ref,
                                m.create(new float[] {0f}, new Shape(1, 1)),
                                new GrpoConfig(
                                        0.2,
                                        0.2,
                                        1.0,
                                        GrpoConfig.Aggregation.TOKEN_MEAN,
                                        true,
                                        5.0,
                                        1));
                c.backward(terms.loss());
            }
            final float[] kl = terms.kl().toFloatArray();
            assertThat(kl[0]).isEqualTo(Losses.MAX_KL);
            // exponent -30 clamps to -20: e^-20 + 20 - 1, about 19, then the value clamps to 10
            assertThat(kl[1]).isEqualTo(Losses.MAX_KL);
            assertThat(terms.klExponent().toFloatArray()).containsExactly(59f, -30f);
            for (final float g : logp.getGradient().toFloatArray()) {
                assertThat(g).isFinite();
                assertThat(Math.abs(g)).isLessThanOrEqualTo(1f);
            }
        }
    }

    @Test
    void shouldClampTheReportedRatioAtTwentyNats() {
        try (NDManager m = DjlRuntime.newManager()) {
            final NDArray logp = m.create(new float[] {-1f, -100f}, new Shape(1, 2));
            final NDArray behaviour = m.create(new float[] {-100f, -1f}, new Shape(1, 2));
            final float[] ratio =
                    Losses.grpo(
                                    logp,
                                    m.ones(new Shape(1, 2)),
                                    behaviour,
                                    null,
                                    m.create(new float[] {1f}, new Shape(1, 1)),
                                    GrpoConfig.grpo())
                            .ratio()
                            .toFloatArray();
            assertThat(ratio[0]).isCloseTo((float) Math.exp(20), within(1e3f));
            assertThat(ratio[1]).isCloseTo((float) Math.exp(-20), within(1e-10f));
        }
    }

    private static double loss(final GrpoConfig config) {
        try (NDManager m = DjlRuntime.newManager()) {
            final float[] logp = {-1f, -2f, -0.5f, -1.5f, -0.7f, 0f};
            final float[] behaviour = new float[logp.length];
            final float[] reference = new float[logp.length];
            for (int i = 0; i < logp.length; i++) {
                behaviour[i] = logp[i] - (float) Math.log(1.25);
                reference[i] = logp[i] + (float) Math.log(2);
            }
            final Shape shape = new Shape(2, 3);
            return Losses.grpo(
                            m.create(logp, shape),
                            m.create(new float[] {1, 1, 1, 1, 1, 0}, shape),
                            m.create(behaviour, shape),
                            m.create(reference, shape),
                            m.create(new float[] {1f, -1f}, new Shape(2, 1)),
                            config)
                    .loss()
                    .getFloat();
        }
    }
}
