package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.VectorKernels;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decode steps of G rows through the Vector API kernel give the engine's logits (the golden-logit
 * fixture test covers one row against independent implementations), and a decoder being trained
 * goes back to the engine.
 */
class PackedDecodeTest {

    private static final int ROWS = 11;
    private static final int PROMPT = 6;
    private static final int STEPS = 5;

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldDecodeGRowsAsTheEngineDoes(final String fixture) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder packed = HfDecoder.load(HfFixtures.checkpoint(fixture), manager);
                HfDecoder engine = engineDecoder(fixture, manager)) {
            assertThat(packed.packsDecodeSteps()).isTrue();
            assertThat(engine.packsDecodeSteps()).isFalse();
            final float[][] a = decode(packed, manager);
            final float[][] b = decode(engine, manager);
            for (int s = 0; s < STEPS; s++) {
                double worst = 0;
                for (int i = 0; i < a[s].length; i++) {
                    worst = Math.max(worst, Math.abs(a[s][i] - b[s][i]));
                }
                assertThat(worst).as("step %d", s).isLessThan(1e-4);
            }
            packed.setTrainable(true);
            assertThat(packed.packsDecodeSteps()).isFalse();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    private static HfDecoder engineDecoder(final String fixture, final NDManager manager) {
        System.setProperty(VectorKernels.SETTING, "engine");
        try {
            return HfDecoder.load(HfFixtures.checkpoint(fixture), manager);
        } finally {
            System.clearProperty(VectorKernels.SETTING);
        }
    }

    /** The logits of each decode step after a prompt, every row fed a different token. */
    private static float[][] decode(final HfDecoder model, final NDManager manager) {
        final float[][] logits = new float[STEPS][];
        try (NDManager m = manager.newSubManager();
                KvCache cache = model.newCache(m, ROWS, PROMPT + STEPS)) {
            final long[] ids = new long[ROWS * PROMPT];
            final long[] positions = new long[ROWS * PROMPT];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = 3 + (7L * i) % 200;
                positions[i] = i % PROMPT;
            }
            model.forward(
                    m.create(ids, new Shape(ROWS, PROMPT)),
                    m.create(positions, new Shape(ROWS, PROMPT)),
                    Masks.causal(m, PROMPT),
                    cache);
            for (int s = 0; s < STEPS; s++) {
                final long[] next = new long[ROWS];
                for (int r = 0; r < ROWS; r++) {
                    next[r] = 1 + (13L * r + 5L * s) % 250;
                }
                final long[] at = new long[ROWS];
                Arrays.fill(at, PROMPT + s);
                final NDArray out =
                        model.forward(
                                m.create(next, new Shape(ROWS, 1)),
                                m.create(at, new Shape(ROWS, 1)),
                                null,
                                cache);
                logits[s] = out.toFloatArray();
            }
        }
        return logits;
    }
}
