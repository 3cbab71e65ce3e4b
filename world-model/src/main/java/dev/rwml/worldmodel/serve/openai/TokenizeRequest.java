package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * vLLM's {@code POST /tokenize} request.
 *
 * @param model the served model's name
 * @param prompt the text to tokenize
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TokenizeRequest(String model, String prompt) {}
