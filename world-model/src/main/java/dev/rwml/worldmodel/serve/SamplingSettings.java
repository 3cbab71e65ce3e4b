package dev.rwml.worldmodel.serve;

/**
 * How a world model is sampled: G completions per prompt at a temperature and nucleus.
 *
 * @param groupSize completions per prompt (G)
 * @param temperature softmax temperature
 * @param topP nucleus probability mass
 * @param maxNewTokens longest completion
 */
public record SamplingSettings(int groupSize, float temperature, float topP, int maxNewTokens) {}
