package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
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

    /** The sizes its memory use follows from ({@link MemoryEstimate}). */
    DecoderShape shape();

    /**
     * Floats per token that training through this model's adapter keeps for the backward pass
     * beyond the decoder's own tensors; 0 for a model without one.
     */
    default long adapterFloatsPerToken() {
        return 0;
    }

    /**
     * The hidden states (batch, steps, hidden) that {@link #head} turns into logits, for token ids
     * (batch, steps, int64) at the given positions (batch, steps, int64). {@code bias} is an
     * additive attention bias broadcastable to (batch, heads, steps, keys), or null for none; with
     * a {@code cache}, the steps' keys and values are appended to it and the queries attend to
     * everything cached.
     */
    NDArray hidden(NDArray ids, NDArray positions, NDArray bias, KvCache cache);

    /** Logits (..., vocab) of hidden states (..., hidden): the LM head. */
    NDArray head(NDArray hidden);

    /** Logits (batch, steps, vocab): {@link #head} of {@link #hidden}. */
    default NDArray forward(
            final NDArray ids, final NDArray positions, final NDArray bias, final KvCache cache) {
        return head(hidden(ids, positions, bias, cache));
    }

    /**
     * Logits (batch, 1, vocab) of the last step only, as {@link #forward} computes them: prefill
     * needs no more, and the LM head over every prompt position would dominate its cost.
     */
    default NDArray lastLogits(
            final NDArray ids, final NDArray positions, final NDArray bias, final KvCache cache) {
        return head(hidden(ids, positions, bias, cache).get(":, -1:, :"));
    }

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
     * The most logits {@link #tokenLogProbs} holds at once: 2^24 floats (64 MiB), so a 150k
     * vocabulary never needs a (batch, tokens, vocab) tensor.
     */
    long LOGIT_CHUNK_ELEMENTS = 1L << 24;

    /**
     * log softmax(head(hidden))[target] of every step (batch, steps): the LM head and the softmax
     * run over chunks of steps of at most {@code maxLogits} logits each, every chunk's arrays freed
     * before the next (under a gradient collector the graph keeps what backward needs). Matches
     * {@link #logProbsOf} of the whole {@link #forward}.
     *
     * @param hidden (batch, steps, hidden) in {@code step}
     * @param targets (batch, steps, 1) int64 token ids
     */
    static NDArray tokenLogProbs(
            final CausalLM model,
            final NDArray hidden,
            final NDArray targets,
            final NDManager step,
            final long maxLogits) {
        final long rows = hidden.getShape().get(0);
        final long steps = hidden.getShape().get(1);
        final long perChunk = Math.max(1, maxLogits / Math.max(1, rows * model.vocabSize()));
        if (perChunk >= steps) {
            return logProbsOf(model.head(hidden), targets);
        }
        final NDList parts = new NDList();
        for (long start = 0; start < steps; start += perChunk) {
            final long end = Math.min(steps, start + perChunk);
            try (NDManager chunk = step.newSubManager()) {
                final NDArray h = hidden.get(":, " + start + ":" + end + ", :");
                final NDArray t = targets.get(":, " + start + ":" + end + ", :");
                h.attach(chunk);
                t.attach(chunk);
                final NDArray logProbs = logProbsOf(model.head(h), t);
                logProbs.attach(step);
                parts.add(logProbs);
            }
        }
        return NDArrays.concat(parts, 1);
    }

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
