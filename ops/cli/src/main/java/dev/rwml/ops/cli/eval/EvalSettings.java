package dev.rwml.ops.cli.eval;

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
 */
public record EvalSettings(
        int samples, long seed, int bootstrap, float temperature, float topP, int maxNewTokens) {

    /** Fewest prompt tokens worth sampling from (the prediction stage's minimum). */
    public static final int MIN_PROMPT_TOKENS = 8;

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

    /** The prompt budget under a model's context, leaving every completion its length. */
    public int promptBudget(final int maxContext) {
        final int budget = maxContext - maxNewTokens;
        if (budget < MIN_PROMPT_TOKENS) {
            throw new IllegalArgumentException(
                    "--max-new-tokens "
                            + maxNewTokens
                            + " leaves "
                            + Math.max(0, budget)
                            + " of the model's "
                            + maxContext
                            + " context tokens for the prompt; use at most "
                            + (maxContext - MIN_PROMPT_TOKENS));
        }
        return budget;
    }
}
