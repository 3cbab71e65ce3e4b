package dev.rwml.env.tau2;

import java.util.Map;
import java.util.Set;

/**
 * The simulated user's hidden instructions: the opening message (the reason for the call, with no
 * details), what it says when the agent drifts, what it knows (revealed only when asked), what it
 * does not know, and whether its goal is to be handed to a human.
 */
public record UserScenario(
        String opening,
        String reminder,
        Map<InfoKind, String> known,
        Set<InfoKind> unknown,
        boolean expectsTransfer) {

    /** Copies the collections so a scenario never changes after it is made. */
    public UserScenario {
        known = Map.copyOf(known);
        unknown = Set.copyOf(unknown);
    }
}
