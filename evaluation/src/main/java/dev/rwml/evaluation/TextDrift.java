package dev.rwml.evaluation;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.events.Transition;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.prompt.SftTarget;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Drift measured on held-out text, teacher-forced: each transition's prompt followed by its
 * observed next state as the base init and WM-SFT train it ({@link SftTarget}). The KL is exact
 * over the vocabulary at every target position (no sampling), and perplexity is that of the target
 * tokens.
 */
public final class TextDrift {

    private static final int BATCH = 16;

    private TextDrift() {}

    /**
     * The (prompt, target) token pairs of transitions under a model's tokenizer and context. Text
     * of another environment is often longer than the context (a household tokenizer spends many
     * tokens on JSON), so instead of leaving such text out, a target keeps at most half the context
     * and the prompt keeps its last tokens that fit beside it.
     */
    public static List<SequenceBatch.Pair> pairs(
            final List<Transition> transitions, final WorldModel model) {
        final PromptFormat format = PromptFormat.standard();
        final int maxContext = model.config().maxContext();
        final List<SequenceBatch.Pair> out = new ArrayList<>();
        for (final Transition t : transitions) {
            int[] target = SftTarget.ids(model.tokenizer(), t.getNextObservation());
            if (target.length > maxContext / 2) {
                target = Arrays.copyOf(target, maxContext / 2);
            }
            final int[] prompt = model.tokenizer().encode(format.text(PromptView.of(t)));
            final int keep = Math.min(prompt.length, maxContext - target.length);
            if (keep > 0 && target.length > 0) {
                out.add(
                        new SequenceBatch.Pair(
                                Arrays.copyOfRange(prompt, prompt.length - keep, prompt.length),
                                target));
            }
        }
        return out;
    }

    /** exp(-mean log p(target token)) over every target token; NaN without pairs. */
    public static double perplexity(final WorldModel model, final List<SequenceBatch.Pair> pairs) {
        double logProb = 0;
        long tokens = 0;
        for (int from = 0; from < pairs.size(); from += BATCH) {
            for (final float[] row :
                    model.scorer()
                            .score(pairs.subList(from, Math.min(pairs.size(), from + BATCH)))) {
                for (final float lp : row) {
                    logProb += lp;
                    tokens++;
                }
            }
        }
        return tokens == 0 ? Double.NaN : Math.exp(-logProb / tokens);
    }

    /**
     * Mean over target tokens of KL(model || base) of the next-token distributions; the two models
     * must share the tokenizer (a run's versions do). NaN without pairs.
     */
    public static double meanKl(
            final TransformerLM model,
            final TransformerLM base,
            final int padId,
            final List<SequenceBatch.Pair> pairs) {
        if (model.config().vocabSize() != base.config().vocabSize()) {
            throw new IllegalArgumentException(
                    "the model's vocabulary ("
                            + model.config().vocabSize()
                            + ") differs from its base's ("
                            + base.config().vocabSize()
                            + "); KL needs version 0 of the model's own run");
        }
        final int maxContext = Math.min(model.config().maxContext(), base.config().maxContext());
        double sum = 0;
        long tokens = 0;
        final boolean grad = DjlRuntime.setGradMode(false);
        try {
            for (int from = 0; from < pairs.size(); from += BATCH) {
                final SequenceBatch batch =
                        SequenceBatch.of(
                                pairs.subList(from, Math.min(pairs.size(), from + BATCH)),
                                padId,
                                maxContext);
                final float[] kl = klPerPosition(model, base, batch);
                final float[] mask = batch.completionMask();
                for (int i = 0; i < mask.length; i++) {
                    if (mask[i] > 0) {
                        sum += kl[i];
                        tokens++;
                    }
                }
            }
        } finally {
            DjlRuntime.setGradMode(grad);
        }
        return tokens == 0 ? Double.NaN : sum / tokens;
    }

    /** KL(p || q) at each position but the last, (rows x (length - 1)) like the mask. */
    private static float[] klPerPosition(
            final TransformerLM model, final TransformerLM base, final SequenceBatch batch) {
        final int rows = batch.rows();
        final int length = batch.length();
        try (NDManager step = DjlRuntime.newManager()) {
            final NDArray ids = step.create(batch.ids(), new Shape(rows, length));
            final long[] pos = new long[rows * length];
            for (int i = 0; i < pos.length; i++) {
                pos[i] = i % length;
            }
            final NDArray positions = step.create(pos, new Shape(rows, length));
            final NDArray mask = Masks.causal(step, length);
            final NDArray logP =
                    model.forward(ids, positions, mask, null).get(":, :-1, :").logSoftmax(-1);
            final NDArray logQ =
                    base.forward(ids, positions, mask, null).get(":, :-1, :").logSoftmax(-1);
            return logP.exp().mul(logP.sub(logQ)).sum(new int[] {-1}).toFloatArray();
        }
    }
}
