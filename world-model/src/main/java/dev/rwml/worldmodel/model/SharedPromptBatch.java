package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Completions batched by their prompt, so each distinct prompt goes through the model once and its
 * keys and values serve every completion that follows it (the G samples of a GRPO group): a prefix
 * pass over the distinct prompts, left-padded, fills a KV cache; the cache's rows are selected per
 * completion; a completion pass attends to them. Gradients flow through the shared prompt pass, so
 * the log-probabilities, the loss and every gradient equal those of {@link SequenceBatch} where
 * each sequence carries its own copy of the prompt, at a fraction of the arithmetic when prompts
 * are long and completions short.
 *
 * <p>Log-probabilities come in the completion layout: (rows, width), column j holding completion
 * token j of the row, {@link #mask()} 1 where the row has that token.
 *
 * @param prompts the distinct prompts, in order of first appearance
 * @param promptOfRow per completion row, the index of its prompt
 * @param completions per row, the completion tokens
 * @param width the longest completion
 * @param padId token id that fills padding
 */
public record SharedPromptBatch(
        List<int[]> prompts, int[] promptOfRow, List<int[]> completions, int width, int padId) {

    /**
     * Batches the pairs, sharing identical prompts (by content); every prompt + completion must fit
     * {@code maxContext}, every completion must hold at least one token.
     */
    public static SharedPromptBatch of(
            final List<SequenceBatch.Pair> pairs, final int padId, final int maxContext) {
        if (pairs.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one sequence");
        }
        final Map<PromptKey, Integer> index = new LinkedHashMap<>();
        final List<int[]> prompts = new ArrayList<>();
        final int[] promptOfRow = new int[pairs.size()];
        final List<int[]> completions = new ArrayList<>(pairs.size());
        int width = 0;
        for (int r = 0; r < pairs.size(); r++) {
            final SequenceBatch.Pair p = pairs.get(r);
            final int total = p.prompt().length + p.completion().length;
            if (total > maxContext) {
                throw new IllegalArgumentException(
                        "sequence of "
                                + total
                                + " tokens exceeds the model context of "
                                + maxContext
                                + ": shorten the prompt (PromptFormat truncates history) or the"
                                + " completion");
            }
            if (p.completion().length == 0) {
                throw new IllegalArgumentException(
                        "completion of row " + r + " is empty: nothing to score or train");
            }
            promptOfRow[r] =
                    index.computeIfAbsent(
                            new PromptKey(p.prompt()),
                            k -> {
                                prompts.add(p.prompt());
                                return prompts.size() - 1;
                            });
            completions.add(p.completion());
            width = Math.max(width, p.completion().length);
        }
        return new SharedPromptBatch(
                List.copyOf(prompts), promptOfRow, List.copyOf(completions), width, padId);
    }

    /** Completion rows. */
    public int rows() {
        return completions.size();
    }

    /** Completion tokens in the batch. */
    public int completionTokens() {
        int n = 0;
        for (final int[] c : completions) {
            n += c.length;
        }
        return n;
    }

    /** 1 where row r has a completion token at column j, row-major (rows x width). */
    public float[] completionMask() {
        final float[] mask = new float[rows() * width];
        for (int r = 0; r < rows(); r++) {
            Arrays.fill(mask, r * width, r * width + completions.get(r).length, 1f);
        }
        return mask;
    }

    /** {@link #completionMask()} as an array of {@code manager}. */
    public NDArray mask(final NDManager manager) {
        return manager.create(completionMask(), new Shape(rows(), width));
    }

    /**
     * Per-row values (each of the row's completion length) laid out as (rows, width), 0 at padding:
     * the behaviour log-probs of GRPO, for example.
     */
    public float[] toLayout(final List<float[]> perRow) {
        final float[] out = new float[rows() * width];
        for (int r = 0; r < rows(); r++) {
            final float[] row = perRow.get(r);
            if (row.length != completions.get(r).length) {
                throw new IllegalArgumentException(
                        "row "
                                + r
                                + " has "
                                + row.length
                                + " values for "
                                + completions.get(r).length
                                + " completion tokens");
            }
            System.arraycopy(row, 0, out, r * width, row.length);
        }
        return out;
    }

    /**
     * Log-probabilities (rows, width) of each completion token at temperature 1; records the
     * autograd graph inside a gradient collector. The arrays belong to {@code step}.
     */
    public NDArray logProbs(final CausalLM model, final NDManager step) {
        final long[] targets = new long[rows() * width];
        for (int r = 0; r < rows(); r++) {
            final int[] c = completions.get(r);
            for (int j = 0; j < c.length; j++) {
                targets[r * width + j] = c[j];
            }
        }
        return CausalLM.tokenLogProbs(
                        model,
                        hidden(model, step),
                        step.create(targets, new Shape(rows(), width, 1)),
                        step,
                        CausalLM.LOGIT_CHUNK_ELEMENTS)
                .reshape(rows(), width);
    }

    /**
     * Logits (rows, width, vocab): column j is the distribution of completion token j, read at the
     * prompt's last position for j = 0 and at completion token j - 1 after it.
     */
    public NDArray logits(final CausalLM model, final NDManager step) {
        return model.head(hidden(model, step));
    }

    /** The hidden states (rows, width, hidden) whose {@link CausalLM#head} is {@link #logits}. */
    private NDArray hidden(final CausalLM model, final NDManager step) {
        final int distinct = prompts.size();
        int longest = 0;
        for (final int[] p : prompts) {
            longest = Math.max(longest, p.length);
        }
        final int[] pad = new int[distinct];
        final long[] ids = new long[distinct * longest];
        final long[] pos = new long[distinct * longest];
        Arrays.fill(ids, padId);
        for (int p = 0; p < distinct; p++) {
            final int[] prompt = prompts.get(p);
            pad[p] = longest - prompt.length;
            for (int t = 0; t < longest; t++) {
                pos[p * longest + t] = Math.max(0, t - pad[p]);
            }
            System.arraycopy(toLong(prompt), 0, ids, p * longest + pad[p], prompt.length);
        }
        // The completion pass feeds tokens 0 .. width - 2: the last token is only predicted.
        final int steps = width - 1;
        final KvCache prefix = model.newCache(step, distinct, longest + Math.max(steps, 1));
        final NDArray first =
                model.hidden(
                                step.create(ids, new Shape(distinct, longest)),
                                step.create(pos, new Shape(distinct, longest)),
                                Masks.causalLeftPadded(step, pad, longest),
                                prefix)
                        .get(":, -1:, :");
        final long[] rowIndex = new long[rows()];
        for (int r = 0; r < rows(); r++) {
            rowIndex[r] = promptOfRow[r];
        }
        final NDArray firstPerRow = first.get(step.create(rowIndex));
        if (steps == 0) {
            return firstPerRow;
        }
        final KvCache cache = prefix.selectRows(step, rowIndex);
        final long[] inIds = new long[rows() * steps];
        final long[] inPos = new long[rows() * steps];
        final int[] rowPad = new int[rows()];
        Arrays.fill(inIds, padId);
        for (int r = 0; r < rows(); r++) {
            final int[] c = completions.get(r);
            final int promptLength = prompts.get(promptOfRow[r]).length;
            rowPad[r] = pad[promptOfRow[r]];
            for (int j = 0; j < steps; j++) {
                if (j < c.length - 1) {
                    inIds[r * steps + j] = c[j];
                    inPos[r * steps + j] = promptLength + j;
                } else {
                    // padding: any position inside the context (its output is never read), and
                    // promptLength + j could run past it when another row's completion is longer
                    inPos[r * steps + j] = promptLength;
                }
            }
        }
        final NDArray rest =
                model.hidden(
                        step.create(inIds, new Shape(rows(), steps)),
                        step.create(inPos, new Shape(rows(), steps)),
                        Masks.afterPrefix(step, rowPad, longest, steps),
                        cache);
        return NDArrays.concat(new NDList(firstPerRow, rest), 1);
    }

    private static long[] toLong(final int[] ids) {
        final long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = ids[i];
        }
        return out;
    }

    /** A prompt compared by content. */
    private record PromptKey(int[] ids) {
        @Override
        public boolean equals(final Object o) {
            return o instanceof PromptKey k && Arrays.equals(ids, k.ids);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ids);
        }

        @Override
        public String toString() {
            return Arrays.toString(ids);
        }
    }
}
