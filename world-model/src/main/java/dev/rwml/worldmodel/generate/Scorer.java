package dev.rwml.worldmodel.generate;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.SequenceBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * Log-probabilities of given completion tokens after their prompts, in one batched forward pass
 * without a gradient (the behaviour or reference log-probs of GRPO).
 */
public final class Scorer {

    private final CausalLM model;
    private final int padId;

    /** A scorer for a model; {@code padId} fills shorter rows. */
    public Scorer(final CausalLM model, final int padId) {
        this.model = model;
        this.padId = padId;
    }

    /** Per pair, the log-probability of each completion token at temperature 1. */
    public List<float[]> score(final List<SequenceBatch.Pair> pairs) {
        final SequenceBatch batch = SequenceBatch.of(pairs, padId, model.maxContext());
        final float[] all;
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager step = DjlRuntime.newManager()) {
            all = batch.logProbs(model, step).toFloatArray();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
        final int width = batch.length() - 1;
        final List<float[]> out = new ArrayList<>(pairs.size());
        for (int r = 0; r < batch.rows(); r++) {
            final float[] row = new float[batch.completionLength()[r]];
            System.arraycopy(all, r * width + batch.completionStart()[r] - 1, row, 0, row.length);
            out.add(row);
        }
        return out;
    }
}
