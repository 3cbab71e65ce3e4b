package dev.rwml.serving;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A {@code POST /v1/world-model/predict} request: what an agent saw before acting and the actions
 * it considers; the server predicts the next state of each.
 *
 * @param env the environment's name ({@code alfworld}, {@code retail}, ...), as the run's
 *     transitions name it; default {@code alfworld}
 * @param task the task text
 * @param history earlier turns, oldest first (may be empty)
 * @param observation the current observation
 * @param actions the candidate actions, one prediction each
 * @param n predictions per action (default 1)
 * @param maxTokens longest completion (default 64)
 * @param temperature softmax temperature (default 1)
 * @param topP nucleus probability mass (default 1)
 * @param seed the sampling seed, for reproducible answers (default: none)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record WorldModelRequest(
        String env,
        String task,
        List<Turn> history,
        String observation,
        List<String> actions,
        Integer n,
        @JsonProperty("max_tokens") Integer maxTokens,
        Double temperature,
        @JsonProperty("top_p") Double topP,
        Long seed) {

    /**
     * One earlier action and the observation that followed it.
     *
     * @param action what the agent did
     * @param observation what it saw next
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Turn(String action, String observation) {}
}
