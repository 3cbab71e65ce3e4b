package dev.rwml.worldmodel.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.generate.Scorer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TransformerLMTest {

    private static final ModelConfig CONFIG = new ModelConfig(64, 32, 2, 4, 64, 64, false);
    private static NDManager manager;
    private static TransformerLM model;

    @BeforeAll
    static void create() {
        manager = DjlRuntime.newManager();
        model = TransformerLM.initialise(CONFIG, 11, manager);
    }

    @AfterAll
    static void close() {
        model.close();
        manager.close();
    }

    @Test
    void shouldGiveTheSameLogitsWithKvCacheAsWithFullForward() {
        final long[] seq = {5, 9, 2, 33, 17, 8, 41, 3, 60, 12};
        final int prefix = 4;
        try (NDManager step = manager.newSubManager()) {
            final float[] full = fullLogits(step, seq);
            final KvCache cache = new KvCache(step, CONFIG, 1, seq.length);
            final float[] incremental = new float[seq.length * CONFIG.vocabSize()];
            final long[] head = java.util.Arrays.copyOf(seq, prefix);
            final NDArray first =
                    model.forward(
                            step.create(head, new Shape(1, prefix)),
                            step.create(new long[] {0, 1, 2, 3}, new Shape(1, prefix)),
                            Masks.causal(step, prefix),
                            cache);
            System.arraycopy(first.toFloatArray(), 0, incremental, 0, prefix * CONFIG.vocabSize());
            for (int t = prefix; t < seq.length; t++) {
                final NDArray out =
                        model.forward(
                                step.create(new long[] {seq[t]}, new Shape(1, 1)),
                                step.create(new long[] {t}, new Shape(1, 1)),
                                null,
                                cache);
                System.arraycopy(
                        out.toFloatArray(),
                        0,
                        incremental,
                        t * CONFIG.vocabSize(),
                        CONFIG.vocabSize());
            }
            assertThat(cache.length()).isEqualTo(seq.length);
            for (int i = 0; i < full.length; i++) {
                assertThat(incremental[i]).isCloseTo(full[i], within(1e-4f));
            }
        }
    }

    @Test
    void shouldIgnoreLeftPaddingInBatchedPrefill() {
        final long[] shortSeq = {7, 8, 9};
        final long[] longSeq = {1, 2, 3, 4, 5, 6};
        try (NDManager step = manager.newSubManager()) {
            final float[] alone = fullLogits(step, shortSeq);
            final int[] pad = {3, 0};
            final long[] ids = {0, 0, 0, 7, 8, 9, 1, 2, 3, 4, 5, 6};
            final long[] pos = {0, 0, 0, 0, 1, 2, 0, 1, 2, 3, 4, 5};
            final float[] batched =
                    model.forward(
                                    step.create(ids, new Shape(2, 6)),
                                    step.create(pos, new Shape(2, 6)),
                                    Masks.causalLeftPadded(step, pad, 6),
                                    null)
                            .toFloatArray();
            final int v = CONFIG.vocabSize();
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < v; i++) {
                    assertThat(batched[(3 + t) * v + i]).isCloseTo(alone[t * v + i], within(1e-4f));
                }
            }
        }
    }

    @Test
    void shouldScoreCompletionTokensAsTheLogSoftmaxOfTheLogits() {
        final int[] prompt = {4, 10, 22};
        final int[] completion = {30, 31, 5};
        final long[] seq = {4, 10, 22, 30, 31, 5};
        final float[] logits;
        try (NDManager step = manager.newSubManager()) {
            logits = fullLogits(step, seq);
        }
        final List<float[]> scores =
                new Scorer(model, 0)
                        .score(
                                List.of(
                                        new SequenceBatch.Pair(prompt, completion),
                                        new SequenceBatch.Pair(new int[] {1}, new int[] {2})));
        final int v = CONFIG.vocabSize();
        for (int i = 0; i < completion.length; i++) {
            final int position = prompt.length - 1 + i;
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < v; k++) {
                max = Math.max(max, logits[position * v + k]);
            }
            double sum = 0;
            for (int k = 0; k < v; k++) {
                sum += Math.exp(logits[position * v + k] - max);
            }
            final double expected = logits[position * v + completion[i]] - max - Math.log(sum);
            assertThat((double) scores.get(0)[i]).isCloseTo(expected, within(1e-4));
        }
        assertThat(scores.get(1)).hasSize(1);
    }

    @Test
    void shouldInitialiseIdenticallyFromTheSameSeed() {
        try (TransformerLM again = TransformerLM.initialise(CONFIG, 11, manager)) {
            assertThat(again.toTensors().get("blocks.1.mlp.fc.weight").data())
                    .containsExactly(model.toTensors().get("blocks.1.mlp.fc.weight").data());
        }
        assertThat(model.parameters()).containsKey("lm_head.weight");
        long count = 0;
        for (final Tensor t : model.toTensors().values()) {
            count += t.data().length;
        }
        assertThat(count).isEqualTo(CONFIG.parameterCount());
    }

    private static float[] fullLogits(final NDManager step, final long[] seq) {
        final long[] pos = new long[seq.length];
        for (int i = 0; i < pos.length; i++) {
            pos[i] = i;
        }
        return model.forward(
                        step.create(seq, new Shape(1, seq.length)),
                        step.create(pos, new Shape(1, seq.length)),
                        Masks.causal(step, seq.length),
                        null)
                .toFloatArray();
    }
}
