package dev.rwml.env.recorded;

import dev.rwml.events.NextStateKind;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One recorded step of a trajectory: the action and what followed it.
 *
 * @param action the agent's action a_t
 * @param observation what followed, s_t+1
 * @param reward the environment's reward for the step
 * @param done whether the episode ended with this step
 * @param valid whether the environment accepted the action
 * @param kind what kind of text the observation is
 * @param admissibleActions the actions that were valid before this step, when recorded
 */
public record RecordedStep(
        String action,
        String observation,
        double reward,
        boolean done,
        boolean valid,
        NextStateKind kind,
        Optional<List<String>> admissibleActions) {

    public RecordedStep {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(observation, "observation");
        Objects.requireNonNull(kind, "kind");
        admissibleActions = admissibleActions.map(List::copyOf);
    }
}
