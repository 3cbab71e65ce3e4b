package dev.rwml.worldmodel.serve;

import org.apache.kafka.common.config.ConfigException;

/**
 * How a world model is sampled: G completions per prompt at a temperature and nucleus.
 *
 * @param groupSize completions per prompt (G)
 * @param temperature softmax temperature
 * @param topP nucleus probability mass
 * @param maxNewTokens longest completion
 */
public record SamplingSettings(int groupSize, float temperature, float topP, int maxNewTokens) {

    /** The fewest prompt tokens a model's context must leave beside a whole completion. */
    public static final int MIN_PROMPT_TOKENS = 8;

    /**
     * The prompt budget under a model of {@code maxContext} tokens: {@code maxPromptTokens} ({@code
     * prompt.max.tokens}), but at most what leaves every completion its {@code
     * sampling.max.new.tokens}. The generator shortens a whole batch's completions to fit its
     * longest prompt, so a prompt taking the whole context would cut every completion of its batch
     * to a few tokens, which then never close their {@code </next_state>}.
     *
     * @throws ConfigException when the context cannot hold a whole completion and {@link
     *     #MIN_PROMPT_TOKENS} prompt tokens
     */
    public int promptBudget(final int maxPromptTokens, final int maxContext) {
        final int budget = Math.min(maxPromptTokens, maxContext - maxNewTokens);
        if (budget < MIN_PROMPT_TOKENS) {
            throw new ConfigException(
                    "sampling.max.new.tokens="
                            + maxNewTokens
                            + " leaves "
                            + Math.max(0, maxContext - maxNewTokens)
                            + " of the model's "
                            + maxContext
                            + " context tokens for the prompt, fewer than the "
                            + MIN_PROMPT_TOKENS
                            + " needed; set sampling.max.new.tokens to at most "
                            + (maxContext - MIN_PROMPT_TOKENS));
        }
        return budget;
    }
}
