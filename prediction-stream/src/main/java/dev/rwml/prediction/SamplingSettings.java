package dev.rwml.prediction;

/**
 * How the prediction stage samples: G completions per prompt at a temperature and nucleus.
 *
 * @param groupSize completions per prompt (G)
 * @param temperature softmax temperature
 * @param topP nucleus probability mass
 * @param maxNewTokens longest completion
 */
public record SamplingSettings(int groupSize, float temperature, float topP, int maxNewTokens) {

    /** The sampling settings of a config. */
    public static SamplingSettings of(final PredictionConfig config) {
        return new SamplingSettings(
                config.groupSize(), config.temperature(), config.topP(), config.maxNewTokens());
    }
}
