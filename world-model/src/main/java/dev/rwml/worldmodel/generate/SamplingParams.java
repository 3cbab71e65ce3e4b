package dev.rwml.worldmodel.generate;

/**
 * How samples are drawn.
 *
 * @param temperature softmax temperature of the sampling distribution; 0 means greedy
 * @param topP nucleus mass: sample among the most likely tokens whose probabilities sum to it
 * @param maxNewTokens upper bound on generated tokens per sample
 * @param seed seed of the sampler; the same seed, prompts and model give the same samples
 */
public record SamplingParams(float temperature, float topP, int maxNewTokens, long seed) {

    public SamplingParams {
        if (!(temperature >= 0f) || Float.isInfinite(temperature)) {
            throw new IllegalArgumentException(
                    "temperature must be a finite number >= 0, got " + temperature);
        }
        if (!(topP > 0f && topP <= 1f)) {
            throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
        }
        if (maxNewTokens <= 0) {
            throw new IllegalArgumentException(
                    "maxNewTokens must be positive, got " + maxNewTokens);
        }
    }

    /** Temperature 1, top-p 1 (the model's own distribution), 128 new tokens. */
    public static SamplingParams defaults(final long seed) {
        return new SamplingParams(1f, 1f, 128, seed);
    }
}
