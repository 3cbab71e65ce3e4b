package dev.rwml.evaluation;

import dev.rwml.worldmodel.serve.SamplingSettings;

/**
 * How models are sampled and figures resampled.
 *
 * @param samples samples per held-out transition
 * @param seed the seed of sampling and of the bootstrap draws
 * @param bootstrap bootstrap resamples per interval
 * @param temperature sampling temperature (the prediction stage's default is 1)
 * @param topP nucleus mass
 * @param maxNewTokens longest completion; the prompt gets the rest of the model's context
 * @param greedy whether each transition also gets one sample at temperature 0, after the others
 */
public record EvalSettings(
        int samples,
        long seed,
        int bootstrap,
        float temperature,
        float topP,
        int maxNewTokens,
        boolean greedy) {

    public EvalSettings {
        if (samples < 1) {
            throw new IllegalArgumentException("--samples must be at least 1, got " + samples);
        }
        if (maxNewTokens < 1) {
            throw new IllegalArgumentException(
                    "--max-new-tokens must be at least 1, got " + maxNewTokens);
        }
    }

    /** The sampling of one held-out batch. */
    public SamplingSettings sampling() {
        return new SamplingSettings(samples, temperature, topP, maxNewTokens);
    }

    /** The greedy sampling of one held-out batch: one sample at temperature 0. */
    public SamplingSettings greedySampling() {
        return new SamplingSettings(1, 0f, 1f, maxNewTokens);
    }

    /**
     * The prompt budget under a model's context, leaving every completion its length: the
     * prediction stage's rule ({@link SamplingSettings#promptBudget}) with no prompt cap of its
     * own.
     */
    public int promptBudget(final int maxContext) {
        return sampling().promptBudget(Integer.MAX_VALUE, maxContext);
    }
}
