package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A {@code POST /v1/chat/completions} request; the messages are rendered with the model's chat
 * template and null fields take the server's defaults.
 *
 * @param model the served model's name
 * @param messages the conversation so far
 * @param n completions
 * @param maxTokens longest completion, in tokens (the older name)
 * @param maxCompletionTokens longest completion, in tokens (the newer name, preferred when both)
 * @param temperature softmax temperature (0 samples greedily)
 * @param topP nucleus probability mass
 * @param seed the sampling seed
 * @param stop texts that end a completion; a single text is read as a list
 * @param logprobs whether to return the sampled tokens' log-probs
 * @param returnTokenIds vLLM's: return the completions' and the prompt's token ids
 * @param stream whether to stream the answer as server-sent events
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ChatCompletionRequest(
        String model,
        List<Message> messages,
        Integer n,
        @JsonProperty("max_tokens") Integer maxTokens,
        @JsonProperty("max_completion_tokens") Integer maxCompletionTokens,
        Double temperature,
        @JsonProperty("top_p") Double topP,
        Long seed,
        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) List<String> stop,
        Boolean logprobs,
        @JsonProperty("return_token_ids") Boolean returnTokenIds,
        Boolean stream) {

    /**
     * One message of a conversation.
     *
     * @param role {@code system}, {@code user} or {@code assistant}
     * @param content its text
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Message(String role, String content) {}
}
