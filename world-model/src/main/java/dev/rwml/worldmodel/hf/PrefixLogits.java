package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.Masks;

/**
 * The next-token logits a Hugging Face decoder gives after every prefix of one sequence, in one
 * causal forward pass without a gradient: the numbers to compare with another implementation.
 */
public final class PrefixLogits {

    private PrefixLogits() {}

    /**
     * The logits of {@code tokens} (positions 0 to n-1), row-major (n x vocab): row {@code t} holds
     * the next-token logits after {@code tokens[0..t]}. The tokens must be 1 to {@link
     * HfDecoder#maxContext} ids of the vocabulary; the pass's arrays are freed before it returns.
     */
    public static float[] of(
            final HfDecoder decoder, final NDManager manager, final long[] tokens) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager step = manager.newSubManager()) {
            final long[] positions = new long[tokens.length];
            for (int i = 0; i < positions.length; i++) {
                positions[i] = i;
            }
            final Shape shape = new Shape(1, tokens.length);
            return decoder.forward(
                            step.create(tokens, shape),
                            step.create(positions, shape),
                            Masks.causal(step, tokens.length),
                            null)
                    .toFloatArray();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }
}
