package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * A {@code POST /v1/completions} answer as vLLM gives it: {@code n} choices per prompt, prompt by
 * prompt ({@code index} = prompt * n + sample).
 *
 * @param id the answer's id
 * @param object always {@code text_completion}
 * @param created seconds since the epoch
 * @param model the model that answered ({@code rwml serve}: {@code <run>-v<version>})
 * @param choices the completions
 * @param usage tokens used
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record CompletionResponse(
        String id, String object, long created, String model, List<Choice> choices, Usage usage) {

    /** The {@link #object()} of a completion answer. */
    public static final String OBJECT = "text_completion";

    /** The {@link Choice#finishReason()} of a completion that ended on a stop text or EOS. */
    public static final String STOP = "stop";

    /** The {@link Choice#finishReason()} of a completion cut at {@code max_tokens}. */
    public static final String LENGTH = "length";

    /**
     * One completion.
     *
     * @param index its place among all choices: prompt * n + sample
     * @param text the completion's text
     * @param logprobs per-token log-probs, when the request asked for them
     * @param finishReason {@link #STOP} or {@link #LENGTH}
     * @param tokenIds vLLM's: the completion's token ids, when {@code return_token_ids}
     * @param promptTokenIds vLLM's: its prompt's token ids, when {@code return_token_ids}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Choice(
            int index,
            String text,
            Logprobs logprobs,
            @JsonProperty("finish_reason") String finishReason,
            @JsonProperty("token_ids") List<Integer> tokenIds,
            @JsonProperty("prompt_token_ids") List<Integer> promptTokenIds) {}

    /**
     * The legacy completions log-probs: one entry per completion token.
     *
     * @param tokens each token's text
     * @param tokenLogprobs each sampled token's log-prob under the model
     * @param topLogprobs the most likely alternatives per token, text to log-prob
     * @param textOffset each token's character offset in the completion
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Logprobs(
            List<String> tokens,
            @JsonProperty("token_logprobs") List<Double> tokenLogprobs,
            @JsonProperty("top_logprobs") List<Map<String, Double>> topLogprobs,
            @JsonProperty("text_offset") List<Integer> textOffset) {}
}
