package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * vLLM's {@code POST /tokenize} answer.
 *
 * @param tokens the token ids of the prompt
 * @param count how many there are
 * @param maxModelLen the longest prompt and completion together, in tokens
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TokenizeResponse(
        List<Integer> tokens, int count, @JsonProperty("max_model_len") int maxModelLen) {}
