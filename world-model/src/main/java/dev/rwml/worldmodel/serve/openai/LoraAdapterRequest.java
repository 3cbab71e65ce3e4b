package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * vLLM's {@code POST /v1/load_lora_adapter} and {@code POST /v1/unload_lora_adapter} request
 * (SGLang takes the same).
 *
 * @param loraName the name requests then sample with, as their {@code model}
 * @param loraPath the PEFT adapter directory the server reads (null when unloading)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record LoraAdapterRequest(
        @JsonProperty("lora_name") String loraName, @JsonProperty("lora_path") String loraPath) {}
