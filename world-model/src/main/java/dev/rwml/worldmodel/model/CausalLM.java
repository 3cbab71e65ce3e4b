package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Map;

/**
 * A decoder-only language model as the generator, scorer and trainer use it: the small GPT of the
 * CPU demo ({@link TransformerLM}) or a Hugging Face checkpoint's decoder. Every forward result
 * belongs to the manager of the ids passed in, so one manager per step frees a step's arrays.
 */
public interface CausalLM extends AutoCloseable {

    /** Rows of the LM head: one more than the largest id the model can produce. */
    int vocabSize();

    /** The longest sequence (prompt and completion together) the model takes. */
    int maxContext();

    /**
     * Logits (batch, steps, vocab) for token ids (batch, steps, int64) at the given positions
     * (batch, steps, int64). {@code bias} is an additive attention bias broadcastable to (batch,
     * heads, steps, keys), or null for none; with a {@code cache}, the steps' keys and values are
     * appended to it and the queries attend to everything cached.
     */
    NDArray forward(NDArray ids, NDArray positions, NDArray bias, KvCache cache);

    /** Logits (batch, 1, vocab) of the last step only, as {@link #forward} computes them. */
    NDArray lastLogits(NDArray ids, NDArray positions, NDArray bias, KvCache cache);

    /** Parameters by name, in checkpoint order. */
    Map<String, NDArray> parameters();

    /** Turns gradient recording of every parameter on (training) or off (frozen models). */
    void setTrainable(boolean trainable);

    /** An empty KV cache for this model in {@code manager}. */
    KvCache newCache(NDManager manager, int batch, int capacity);

    /** Frees the parameters. */
    @Override
    void close();

    /**
     * log softmax(logits)[target] along the last axis at temperature 1, computed as the gathered
     * logit minus the log-sum-exp so the full log-softmax is never materialised; the result has the
     * targets' shape, its last axis (of size 1) squeezed.
     */
    static NDArray logProbsOf(final NDArray logits, final NDArray targets) {
        final NDArray max = logits.max(new int[] {-1}, true).stopGradient();
        final NDArray shifted = logits.sub(max);
        final NDArray lse = shifted.exp().sum(new int[] {-1}, true).log();
        return shifted.gather(targets, -1).sub(lse).squeeze(-1);
    }
}
