package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A {@code POST /v1/completions} request as vLLM takes it; null fields take the server's defaults.
 *
 * @param model the served model's name
 * @param prompt one or more prompts, as texts or token ids
 * @param n completions per prompt
 * @param maxTokens longest completion, in tokens
 * @param temperature softmax temperature (0 samples greedily)
 * @param topP nucleus probability mass
 * @param seed the sampling seed: the same seed, prompts and model give the same completions
 * @param stop texts that end a completion (excluded from it); a single text is read as a list
 * @param logprobs how many top alternatives to return per token besides the sampled one's log-prob;
 *     null returns no log-probs
 * @param returnTokenIds vLLM's: return each completion's token ids and its prompt's
 * @param stream whether to stream the answer as server-sent events
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record CompletionRequest(
        String model,
        CompletionPrompt prompt,
        Integer n,
        @JsonProperty("max_tokens") Integer maxTokens,
        Double temperature,
        @JsonProperty("top_p") Double topP,
        Long seed,
        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) List<String> stop,
        Integer logprobs,
        @JsonProperty("return_token_ids") Boolean returnTokenIds,
        Boolean stream) {}
