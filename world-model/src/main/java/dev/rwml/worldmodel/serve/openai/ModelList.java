package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The {@code GET /v1/models} answer.
 *
 * @param object always {@code list}
 * @param data the models served
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ModelList(String object, List<Card> data) {

    /** A list of these models. */
    public static ModelList of(final List<Card> cards) {
        return new ModelList("list", cards);
    }

    /**
     * One model a request may name.
     *
     * @param id the name to send as {@code model}
     * @param object always {@code model}
     * @param created seconds since the epoch
     * @param ownedBy who serves it
     * @param root what it was loaded from
     * @param parent vLLM's: the base model of a LoRA adapter, else null
     * @param maxModelLen vLLM's: the longest prompt and completion together, in tokens
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Card(
            String id,
            String object,
            long created,
            @JsonProperty("owned_by") String ownedBy,
            String root,
            String parent,
            @JsonProperty("max_model_len") Integer maxModelLen) {}
}
