package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;

/**
 * Scalar operands for ops recorded by autograd. DJL's {@code NDArray.mul(Number)}, {@code
 * div(Number)}, {@code minimum(Number)}, {@code maximum(Number)}, {@code pow(Number)} wrap the
 * number in a 0-d tensor over a Java direct buffer (torch::from_blob, memory torch does not own)
 * and close it right after the op; autograd keeps that tensor for the backward pass, so once the
 * garbage collector frees the buffer the backward reads freed memory (wrong or non-finite
 * gradients, rarely). A scalar from {@link #of} is allocated by torch and lives as long as the
 * graph needs it. ({@code add}/{@code sub} with a number are safe: their backward does not read
 * it.)
 */
public final class Scalars {

    private Scalars() {}

    /** A torch-owned 0-d tensor holding {@code value}, of {@code like}'s type, in its manager. */
    public static NDArray of(final NDArray like, final double value) {
        return like.getManager().full(new Shape(), (float) value, like.getDataType());
    }
}
