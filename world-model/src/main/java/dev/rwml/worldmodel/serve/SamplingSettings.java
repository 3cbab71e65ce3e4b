package dev.rwml.worldmodel.serve;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
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

    /** The setting of {@link #temperature()}. */
    public static final String TEMPERATURE = "sampling.temperature";

    /** The setting of {@link #topP()}. */
    public static final String TOP_P = "sampling.top.p";

    /** The setting of {@link #maxNewTokens()}. */
    public static final String MAX_NEW_TOKENS = "sampling.max.new.tokens";

    /** The fewest prompt tokens a model's context must leave beside a whole completion. */
    public static final int MIN_PROMPT_TOKENS = 8;

    /**
     * Declares {@link #TEMPERATURE}, {@link #TOP_P} and {@link #MAX_NEW_TOKENS}, for every stage
     * that samples a world model; the group size is the stage's own setting.
     */
    public static ConfigDef define(final ConfigDef def) {
        return def.define(
                        TEMPERATURE,
                        Type.DOUBLE,
                        1.0,
                        Range.between(0, 100),
                        Importance.MEDIUM,
                        "Sampling temperature (0 samples greedily).")
                .define(
                        TOP_P,
                        Type.DOUBLE,
                        1.0,
                        Range.between(1e-6, 1),
                        Importance.MEDIUM,
                        "Nucleus sampling: the smallest token set of this probability, in (0, 1].")
                .define(
                        MAX_NEW_TOKENS,
                        Type.INT,
                        64,
                        Range.between(1, 8192),
                        Importance.MEDIUM,
                        "Longest completion.");
    }

    /** The sampling of validated settings, with {@code groupSize} completions per prompt. */
    public static SamplingSettings from(final AbstractConfig settings, final int groupSize) {
        return new SamplingSettings(
                groupSize,
                settings.getDouble(TEMPERATURE).floatValue(),
                settings.getDouble(TOP_P).floatValue(),
                settings.getInt(MAX_NEW_TOKENS));
    }

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
                    MAX_NEW_TOKENS
                            + "="
                            + maxNewTokens
                            + " leaves "
                            + Math.max(0, maxContext - maxNewTokens)
                            + " of the model's "
                            + maxContext
                            + " context tokens for the prompt, fewer than the "
                            + MIN_PROMPT_TOKENS
                            + " needed; set "
                            + MAX_NEW_TOKENS
                            + " to at most "
                            + (maxContext - MIN_PROMPT_TOKENS));
        }
        return budget;
    }
}
