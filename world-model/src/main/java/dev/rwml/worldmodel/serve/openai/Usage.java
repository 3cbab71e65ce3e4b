package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The tokens a completion request used.
 *
 * @param promptTokens tokens of all prompts
 * @param completionTokens tokens of all completions
 * @param totalTokens their sum
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Usage(
        @JsonProperty("prompt_tokens") int promptTokens,
        @JsonProperty("completion_tokens") int completionTokens,
        @JsonProperty("total_tokens") int totalTokens) {

    /** The usage of prompts and completions of these sizes. */
    public static Usage of(final int promptTokens, final int completionTokens) {
        return new Usage(promptTokens, completionTokens, promptTokens + completionTokens);
    }
}
