package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A named float32 array copied out of (or into) the engine, with its shape: the unit of checkpoints
 * and optimizer state.
 *
 * @param shape dimensions, outermost first
 * @param data values in row-major order
 */
public record Tensor(long[] shape, float[] data) {

    /** A copy of an engine array's shape and values. */
    public static Tensor copyOf(final NDArray array) {
        return new Tensor(array.getShape().getShape(), array.toFloatArray());
    }

    /** Copies of engine arrays, in the map's order. */
    public static Map<String, Tensor> copyOf(final Map<String, NDArray> arrays) {
        final Map<String, Tensor> out = new LinkedHashMap<>();
        arrays.forEach((name, array) -> out.put(name, copyOf(array)));
        return out;
    }

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
