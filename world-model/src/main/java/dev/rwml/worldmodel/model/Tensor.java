package dev.rwml.worldmodel.model;

import java.util.Arrays;

/**
 * A named float32 array copied out of (or into) the engine, with its shape: the unit of checkpoints
 * and optimizer state.
 *
 * @param shape dimensions, outermost first
 * @param data values in row-major order
 */
public record Tensor(long[] shape, float[] data) {

    public Tensor {
        long n = 1;
        for (final long d : shape) {
            n *= d;
        }
        if (n != data.length) {
            throw new IllegalArgumentException(
                    "shape "
                            + Arrays.toString(shape)
                            + " needs "
                            + n
                            + " values, got "
                            + data.length);
        }
    }
}
