package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/**
 * Additive attention biases: causal, causal with left padding for batched generation, and the steps
 * after a cached prefix.
 */
public final class Masks {

    /** Additive attention bias of masked positions (finite, so fully masked rows stay finite). */
    public static final float MASKED = -1e9f;

    private Masks() {}

    /** (length, length): position q attends to keys 0..q. */
    public static NDArray causal(final NDManager manager, final int length) {
        final float[] bias = new float[length * length];
        for (int q = 0; q < length; q++) {
            for (int k = q + 1; k < length; k++) {
                bias[q * length + k] = MASKED;
            }
        }
        return manager.create(bias, new Shape(length, length));
    }

    /**
     * (rows, 1, length, length) for left-padded rows: position q attends to keys pad..q. A padding
     * query attends to itself only, so its softmax stays defined; its output is never used.
     */
    public static NDArray causalLeftPadded(
            final NDManager manager, final int[] padding, final int length) {
        final float[] bias = new float[padding.length * length * length];
        java.util.Arrays.fill(bias, MASKED);
        for (int r = 0; r < padding.length; r++) {
            final int base = r * length * length;
            for (int q = 0; q < length; q++) {
                final int from = q < padding[r] ? q : padding[r];
                for (int k = from; k <= q; k++) {
                    bias[base + q * length + k] = 0f;
                }
            }
        }
        return manager.create(bias, new Shape(padding.length, 1, length, length));
    }

    /**
     * (rows, 1, steps, prefix + steps) for steps that follow a cached left-padded prefix: each
     * query sees its row's prefix after the padding, and the steps up to itself.
     */
    public static NDArray afterPrefix(
            final NDManager manager, final int[] padding, final int prefix, final int steps) {
        final int keys = prefix + steps;
        final float[] bias = new float[padding.length * steps * keys];
        for (int r = 0; r < padding.length; r++) {
            for (int q = 0; q < steps; q++) {
                final int base = (r * steps + q) * keys;
                java.util.Arrays.fill(bias, base, base + padding[r], MASKED);
                java.util.Arrays.fill(bias, base + prefix + q + 1, base + keys, MASKED);
            }
        }
        return manager.create(bias, new Shape(padding.length, 1, steps, keys));
    }

    /** (rows, 1, 1, capacity): hides each row's left padding from every later query. */
    public static NDArray keyPadding(
            final NDManager manager, final int[] padding, final int capacity) {
        final float[] bias = new float[padding.length * capacity];
        for (int r = 0; r < padding.length; r++) {
            for (int k = 0; k < padding[r]; k++) {
                bias[r * capacity + k] = MASKED;
            }
        }
        return manager.create(bias, new Shape(padding.length, 1, 1, capacity));
    }
}
