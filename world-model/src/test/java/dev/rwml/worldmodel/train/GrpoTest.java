package dev.rwml.worldmodel.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.TransformerLM;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GrpoTest {

    private static final TrainConfig CONFIG = TrainConfig.grpo(1e-2);

    @Test
    void shouldRaisePositiveAndLowerNegativeAdvantageSamplesInOneStep() {
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 3);
                TransformerLM reference = model.frozenCopy();
                Trainer trainer =
                        model.trainer(
                                new TrainConfig(
                                        1e-2,
                                        0,
                                        0.9,
                                        0.999,
                                        1e-8,
                                        1.0,
                                        0,
                                        0,
                                        TrainConfig.Schedule.CONSTANT,
                                        1),
                                reference,
                                null)) {
            final int[] prompt = model.tokenizer().encode("Your current observation is: a room");
            final int[][] completions = {
                model.tokenizer().encode("<next_state>You see a fridge 1.</next_state>"),
                model.tokenizer().encode("<next_state>Nothing happens.</next_state>"),
                model.tokenizer().encode("<next_state>You open the drawer 3.</next_state>"),
                model.tokenizer().encode("<next_state>The mug 1 is clean.</next_state>")
            };
            final double[] advantages = Advantages.of(new double[] {1, 0, 1, 0}, true);
            final List<float[]> before = score(model, prompt, completions);
            final List<GrpoSample> group = new ArrayList<>();
            for (int i = 0; i < completions.length; i++) {
                group.add(new GrpoSample(prompt, completions[i], before.get(i), advantages[i]));
            }
            final StepMetrics metrics = trainer.grpoStep(group, GrpoConfig.grpo());
            assertThat(metrics.kl()).isCloseTo(0.0, within(1e-6));
            assertThat(metrics.meanRatio()).isCloseTo(1.0, within(1e-5));
            assertThat(metrics.clipFraction()).isZero();
            final List<float[]> after = score(model, prompt, completions);
            for (int i = 0; i < completions.length; i++) {
                final double delta = sum(after.get(i)) - sum(before.get(i));
                if (advantages[i] > 0) {
                    assertThat(delta).as("sample %d", i).isPositive();
                } else {
                    assertThat(delta).as("sample %d", i).isNegative();
                }
            }
            // the policy moved, so the KL to the frozen reference is now positive
            assertThat(trainer.grpoStep(group, GrpoConfig.grpo()).kl()).isPositive();
        }
    }

    @Test
    void shouldGiveZeroKlOfAModelToItself() {
        try (NDManager m = DjlRuntime.newManager()) {
            final NDArray logp =
                    m.create(new float[] {-1.2f, -0.3f, -2.5f, -0.7f}, new Shape(2, 2));
            final NDArray mask = m.ones(new Shape(2, 2));
            final Losses.GrpoTerms terms =
                    Losses.grpo(
                            logp,
                            mask,
                            logp,
                            logp,
                            m.create(new float[] {1, -1}, new Shape(2, 1)),
                            GrpoConfig.grpo());
            assertThat(terms.kl().toFloatArray()).containsOnly(0f);
        }
    }

    @Test
    void shouldZeroTheGradientWhereTheClippedObjectiveIsActive() {
        // ratio 1.5 on every token: above 1 + eps, clipped for A > 0, unclipped for A < 0
        final float[] grads = gradientAtRatio(1.5f, new float[] {1f, -1f});
        assertThat(grads[0]).isZero();
        assertThat(grads[1]).isNotZero();
        // ratio 0.5: below 1 - eps, clipped for A < 0 only
        final float[] low = gradientAtRatio(0.5f, new float[] {1f, -1f});
        assertThat(low[0]).isNotZero();
        assertThat(low[1]).isZero();
        // inside the trust region both move
        final float[] inside = gradientAtRatio(1.05f, new float[] {1f, -1f});
        assertThat(inside[0]).isNotZero();
        assertThat(inside[1]).isNotZero();
    }

    @Test
    void shouldReportClipFractionWhenBehaviourLogProbsAreStale() {
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 3);
                Trainer trainer = model.trainer(CONFIG, null, null)) {
            final int[] prompt = model.tokenizer().encode("a room");
            final int[] completion =
                    model.tokenizer().encode("<next_state>Nothing happens.</next_state>");
            final float[] current = score(model, prompt, new int[][] {completion}).get(0);
            final float[] stale = new float[current.length];
            for (int i = 0; i < stale.length; i++) {
                stale[i] = current[i] - 1f; // ratio e: far above 1 + eps
            }
            final StepMetrics m =
                    trainer.grpoStep(
                            List.of(new GrpoSample(prompt, completion, stale, 1.0)),
                            GrpoConfig.grpo());
            assertThat(m.clipFraction()).isEqualTo(1.0);
            assertThat(m.gradNorm()).isZero();
        }
    }

    @Test
    void shouldKeepGradientsFiniteWhenTheBehaviourPolicyGaveATokenAlmostNoProbability() {
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 3);
                Trainer trainer = model.trainer(CONFIG, model.frozenCopy(), null)) {
            final int[] prompt = model.tokenizer().encode("a room");
            final int[] completion =
                    model.tokenizer().encode("<next_state>Nothing happens.</next_state>");
            final float[] current = score(model, prompt, new int[][] {completion}).get(0);
            final float[] unlikely = new float[current.length];
            for (int i = 0; i < unlikely.length; i++) {
                unlikely[i] = current[i] - 200f; // exp(200) overflows a float
            }
            final StepMetrics m =
                    trainer.grpoStep(
                            List.of(new GrpoSample(prompt, completion, unlikely, -1.0)),
                            GrpoConfig.grpo());
            assertThat(m.loss()).isFinite();
            assertThat(m.gradNorm()).isFinite();
        }
    }

    @Test
    void shouldComputeGroupAdvantagesWithAndWithoutStdNormalisation() {
        assertThat(Advantages.of(new double[] {1, 0, 1, 0}, true))
                .containsExactly(new double[] {1, -1, 1, -1}, within(1e-4));
        assertThat(Advantages.of(new double[] {1, 0, 0, 0}, false))
                .containsExactly(0.75, -0.25, -0.25, -0.25);
        assertThat(Advantages.of(new double[] {1, 1}, true)).containsExactly(0, 0);
    }

    private static float[] gradientAtRatio(final float ratio, final float[] advantages) {
        try (NDManager m = DjlRuntime.newManager()) {
            final float[] init = {-1f, -1f};
            final NDArray logp = m.create(init, new Shape(2, 1));
            logp.setRequiresGradient(true);
            final NDArray behaviour =
                    m.create(
                            new float[] {
                                -1f - (float) Math.log(ratio), -1f - (float) Math.log(ratio)
                            },
                            new Shape(2, 1));
            try (GradientCollector c = DjlRuntime.engine().newGradientCollector()) {
                final Losses.GrpoTerms terms =
                        Losses.grpo(
                                logp,
                                m.ones(new Shape(2, 1)),
                                behaviour,
                                null,
                                m.create(advantages, new Shape(2, 1)),
                                GrpoConfig.grpo());
                c.backward(terms.loss());
            }
            return logp.getGradient().toFloatArray();
        }
    }

    private static List<float[]> score(
            final WorldModel model, final int[] prompt, final int[][] completions) {
        final List<SequenceBatch.Pair> pairs = new ArrayList<>();
        for (final int[] c : completions) {
            pairs.add(new SequenceBatch.Pair(prompt, c));
        }
        return model.scorer().score(pairs);
    }

    private static double sum(final float[] values) {
        double s = 0;
        for (final float v : values) {
            s += v;
        }
        return s;
    }
}
