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

    /**
     * Log-probabilities (rows, length - 1) of each next token of a right-padded batch at
     * temperature 1, positions from 0; records the autograd graph inside a gradient collector.
     */
    NDArray tokenLogProbs(NDManager step, SequenceBatch batch);

    /**
     * The largest |logit| over every position of a packed batch (padding included), for diagnosing
     * a step that overflowed. Call with autograd off.
     */
    double maxAbsLogit(NDManager step, SequenceBatch batch);

    /** Parameters by name, in checkpoint order. */
    Map<String, NDArray> parameters();

    /** Turns gradient recording of every parameter on (training) or off (frozen models). */
    void setTrainable(boolean trainable);

    /** An empty KV cache for this model in {@code manager}. */
    KvCache newCache(NDManager manager, int batch, int capacity);

    /** Frees the parameters. */
    @Override
    void close();
}
