package dev.rwml.worldmodel.model;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;
import dev.rwml.worldmodel.DjlRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Vector API kernel against the engine's matmul: row counts through its blocks of eight, a
 * padded tail and a single row, an output size that leaves the last panel part empty, an odd input
 * size, with and without a bias.
 */
class PackedLinearTest {

    @Test
    void shouldBeOnInTheseTestsAndOffWhenTheSettingSaysEngine() {
        // world-model's tests start the JVM with the module (its pom), as JAVA_OPTS does for rwml
        assertThat(VectorKernels.enabled()).isTrue();
        System.setProperty(VectorKernels.SETTING, "engine");
        try {
            assertThat(VectorKernels.enabled()).isFalse();
        } finally {
            System.clearProperty(VectorKernels.SETTING);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 64})
    void shouldMultiplyAsTheEngineDoes(final int rows) {
        final int in = 29;
        final int out = 2 * PackedLinear.PANEL + 5;
        try (NDManager manager = DjlRuntime.newManager()) {
            manager.getEngine().setRandomSeed(rows);
            final NDArray x = manager.randomNormal(new Shape(rows, 1, in));
            final NDArray w = manager.randomNormal(new Shape(out, in));
            final NDArray b = manager.randomNormal(new Shape(out));
            assertClose(
                    PackedLinear.of(w, b).apply(x),
                    Linear.linear(x, w, b).singletonOrThrow(),
                    rows,
                    out);
            assertClose(
                    PackedLinear.of(w, null).apply(x),
                    Linear.linear(x, w).singletonOrThrow(),
                    rows,
                    out);
        }
    }

    private static void assertClose(
            final NDArray actual, final NDArray expected, final int rows, final int out) {
        assertThat(actual.getShape()).isEqualTo(new Shape(rows, 1, out));
        final float[] a = actual.toFloatArray();
        final float[] e = expected.toFloatArray();
        double worst = 0;
        for (int i = 0; i < e.length; i++) {
            worst = Math.max(worst, Math.abs(a[i] - e[i]) / (1 + Math.abs(e[i])));
        }
        // sums of 29 products of unit normals: float32 order differences stay near 1e-6
        assertThat(worst).isLessThan(1e-5);
    }
}
