package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;

/**
 * Prompt + completion sequences packed right-padded into one (rows, length) batch, with the mask of
 * the positions whose next token is part of a completion (the only ones scored or trained).
 *
 * @param rows number of sequences
 * @param length padded length (longest prompt + completion)
 * @param ids token ids, row-major (rows x length), padding filled with {@code padId}
 * @param completionMask 1 at position t when token t+1 belongs to the row's completion (rows x
 *     (length - 1))
 * @param completionStart per row, the index of the first completion token
 * @param completionLength per row, the number of completion tokens
 */
public record SequenceBatch(
        int rows,
        int length,
        long[] ids,
        float[] completionMask,
        int[] completionStart,
        int[] completionLength) {

    /** One prompt and the completion that followed it. */
    public record Pair(int[] prompt, int[] completion) {

        public Pair {
            if (prompt.length == 0) {
                throw new IllegalArgumentException(
                        "prompt must hold at least one token (the completion's first token is"
                                + " predicted from it)");
            }
        }
    }

    /** Packs the pairs; every sequence must fit {@code maxContext}. */
    public static SequenceBatch of(final List<Pair> pairs, final int padId, final int maxContext) {
        if (pairs.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one sequence");
        }
        int length = 2;
        for (final Pair p : pairs) {
            length = Math.max(length, p.prompt().length + p.completion().length);
        }
        if (length > maxContext) {
            throw new IllegalArgumentException(
                    "sequence of "
                            + length
                            + " tokens exceeds the model context of "
                            + maxContext
                            + ": shorten the prompt (PromptFormat truncates history) or the"
                            + " completion");
        }
        final int rows = pairs.size();
        final long[] ids = new long[rows * length];
        final float[] mask = new float[rows * (length - 1)];
        final int[] start = new int[rows];
        final int[] len = new int[rows];
        java.util.Arrays.fill(ids, padId);
        for (int r = 0; r < rows; r++) {
            final Pair p = pairs.get(r);
            final int base = r * length;
            for (int i = 0; i < p.prompt().length; i++) {
                ids[base + i] = p.prompt()[i];
            }
            for (int i = 0; i < p.completion().length; i++) {
                ids[base + p.prompt().length + i] = p.completion()[i];
                mask[r * (length - 1) + p.prompt().length - 1 + i] = 1f;
            }
            start[r] = p.prompt().length;
            len[r] = p.completion().length;
        }
        return new SequenceBatch(rows, length, ids, mask, start, len);
    }

    /** Targets: the token that follows each position (rows x (length - 1)). */
    public long[] targets() {
        final long[] t = new long[rows * (length - 1)];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(ids, r * length + 1, t, r * (length - 1), length - 1);
        }
        return t;
    }

    /**
     * Log-probabilities (rows, length - 1) of each next token at temperature 1, from one causal
     * pass over every whole sequence (positions from 0), the LM head and softmax in chunks of
     * positions ({@link CausalLM#tokenLogProbs}); multiply by the completion mask to keep
     * completion tokens only. Records the autograd graph inside a gradient collector.
     */
    public NDArray logProbs(final CausalLM model, final NDManager step) {
        final long[] pos = new long[rows * length];
        for (int i = 0; i < pos.length; i++) {
            pos[i] = i % length;
        }
        final NDArray hidden =
                model.hidden(
                                step.create(ids, new Shape(rows, length)),
                                step.create(pos, new Shape(rows, length)),
                                Masks.causal(step, length),
                                null)
                        .get(":, :-1, :");
        return CausalLM.tokenLogProbs(
                        model,
                        hidden,
                        step.create(targets(), new Shape(rows, length - 1, 1)),
                        step,
                        CausalLM.LOGIT_CHUNK_ELEMENTS)
                .reshape(rows, length - 1);
    }

    /** Number of completion tokens in the batch. */
    public int completionTokens() {
        int n = 0;
        for (final int l : completionLength) {
            n += l;
        }
        return n;
    }
}
