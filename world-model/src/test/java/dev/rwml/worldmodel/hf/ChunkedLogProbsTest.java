package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.TransformerLM;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The log-probs of the sampled tokens computed over chunks of positions ({@link
 * CausalLM#tokenLogProbs} with a budget of three positions' logits) equal those of the whole (rows,
 * steps, vocab) logits at once, and so do the loss's gradients of every parameter: the chunks'
 * arrays are freed as they go, and backward still finds what it needs.
 */
class ChunkedLogProbsTest {

    private static final int ROWS = 3;
    private static final int STEPS = 11;

    @ParameterizedTest
    @ValueSource(strings = {"small-gpt", "qwen2-tiny", "llama-tiny"})
    void shouldMatchTheWholeLogitsAndTheirGradients(final String name) {
        try (NDManager manager = DjlRuntime.newManager();
                CausalLM model = load(name, manager)) {
            model.setTrainable(true);
            final SplittableRandom random = new SplittableRandom(11);
            final long[] ids = new long[ROWS * (STEPS + 1)];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = random.nextInt(model.vocabSize());
            }
            final long threePositions = 3L * ROWS * model.vocabSize();
            final Run whole = run(model, manager, ids, step -> Long.MAX_VALUE);
            final Run chunked = run(model, manager, ids, step -> threePositions);
            assertThat(chunked.logProbs).hasSize(ROWS * STEPS);
            for (int i = 0; i < whole.logProbs.length; i++) {
                assertThat((double) chunked.logProbs[i])
                        .as("%s log-prob %d", name, i)
                        .isCloseTo(whole.logProbs[i], org.assertj.core.data.Offset.offset(1e-5));
            }
            for (final String parameter : whole.gradients.keySet()) {
                final float[] want = whole.gradients.get(parameter);
                final float[] got = chunked.gradients.get(parameter);
                double scale = 0;
                double diff = 0;
                for (int i = 0; i < want.length; i++) {
                    scale = Math.max(scale, Math.abs(want[i]));
                    diff = Math.max(diff, Math.abs(want[i] - got[i]));
                }
                assertThat(diff)
                        .as("%s gradient of %s", name, parameter)
                        .isLessThan(1e-5 * Math.max(scale, 1e-3));
            }
        }
    }

    private record Run(float[] logProbs, Map<String, float[]> gradients) {}

    /** Log-probs of each next token and the gradients of their sum, with a logit budget. */
    private static Run run(
            final CausalLM model,
            final NDManager manager,
            final long[] ids,
            final LongFunction<Long> budget) {
        final int length = STEPS + 1;
        final long[] inputs = new long[ROWS * STEPS];
        final long[] targets = new long[ROWS * STEPS];
        final long[] positions = new long[ROWS * STEPS];
        for (int r = 0; r < ROWS; r++) {
            for (int t = 0; t < STEPS; t++) {
                inputs[r * STEPS + t] = ids[r * length + t];
                targets[r * STEPS + t] = ids[r * length + t + 1];
                positions[r * STEPS + t] = t;
            }
        }
        try (NDManager step = manager.newSubManager()) {
            final float[] logProbs;
            try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                final NDArray hidden =
                        model.hidden(
                                step.create(inputs, new Shape(ROWS, STEPS)),
                                step.create(positions, new Shape(ROWS, STEPS)),
                                Masks.causal(step, STEPS),
                                null);
                final NDArray lp =
                        CausalLM.tokenLogProbs(
                                model,
                                hidden,
                                step.create(targets, new Shape(ROWS, STEPS, 1)),
                                step,
                                budget.apply(0));
                // weights per position, so every position's gradient counts differently
                final float[] weights = new float[ROWS * STEPS];
                for (int i = 0; i < weights.length; i++) {
                    weights[i] = 1f + (i % 7) * 0.25f;
                }
                collector.backward(lp.mul(step.create(weights, new Shape(ROWS, STEPS))).sum());
                logProbs = lp.toFloatArray();
            }
            final Map<String, float[]> gradients = new LinkedHashMap<>();
            for (final Map.Entry<String, NDArray> p : model.parameters().entrySet()) {
                final NDArray g = p.getValue().getGradient();
                g.attach(step);
                gradients.put(p.getKey(), g.toFloatArray());
                g.set(new NDIndex("..."), 0f);
            }
            return new Run(logProbs, gradients);
        }
    }

    private static CausalLM load(final String name, final NDManager manager) {
        if (name.equals("small-gpt")) {
            return TransformerLM.initialise(
                    new ModelConfig(96, 32, 2, 4, 64, 64, true), 5, manager);
        }
        return HfDecoder.load(HfFixtures.checkpoint(name), manager);
    }
}
