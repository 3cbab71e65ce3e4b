package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A {@code POST /v1/chat/completions} answer as vLLM gives it.
 *
 * @param id the answer's id
 * @param object always {@code chat.completion}
 * @param created seconds since the epoch
 * @param model the model that answered ({@code rwml serve}: {@code <run>-v<version>})
 * @param choices the completions
 * @param usage tokens used
 * @param promptTokenIds vLLM's: the rendered prompt's token ids, when {@code return_token_ids}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ChatCompletionResponse(
        String id,
        String object,
        long created,
        String model,
        List<Choice> choices,
        Usage usage,
        @JsonProperty("prompt_token_ids") List<Integer> promptTokenIds) {

    /** The {@link #object()} of a chat completion answer. */
    public static final String OBJECT = "chat.completion";

    /**
     * One completion.
     *
     * @param index its place among the choices
     * @param message the assistant's message
     * @param logprobs per-token log-probs, when the request asked for them
     * @param finishReason {@code stop} or {@code length}
     * @param tokenIds vLLM's: the completion's token ids, when {@code return_token_ids}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Choice(
            int index,
            ChatCompletionRequest.Message message,
            Logprobs logprobs,
            @JsonProperty("finish_reason") String finishReason,
            @JsonProperty("token_ids") List<Integer> tokenIds) {}

    /**
     * The chat log-probs: one entry per completion token.
     *
     * @param content the tokens in order
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Logprobs(List<TokenLogprob> content) {}

    /**
     * One sampled token and its log-prob.
     *
     * @param token the token's text
     * @param logprob its log-prob under the model
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record TokenLogprob(String token, double logprob) {}
}
