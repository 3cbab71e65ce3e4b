package dev.rwml.serving;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The {@code POST /v1/world-model/predict} answer: per candidate action, the predicted next states.
 *
 * @param model the model that answered, {@code <run>-v<version>}
 * @param version the model version that answered
 * @param predictions one per action, in the request's order
 */
public record WorldModelResponse(String model, long version, List<Prediction> predictions) {

    /**
     * The predictions for one action.
     *
     * @param action the candidate action
     * @param samples its n predictions
     */
    public record Prediction(String action, List<Predicted> samples) {}

    /**
     * One prediction.
     *
     * @param nextState the {@code <next_state>} content, null when the model wrote none
     * @param text the whole completion, thinking included
     * @param finishReason {@code stop} or {@code length}
     */
    public record Predicted(
            @JsonProperty("next_state") String nextState,
            String text,
            @JsonProperty("finish_reason") String finishReason) {}
}
