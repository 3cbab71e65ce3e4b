package dev.rwml.env;

import dev.rwml.events.NextStateKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * One episode of an environment that an agent acts in, one text action at a time.
 *
 * <p>Implementations are not thread-safe: one agent drives one episode.
 */
public interface Environment {

    /** The environment family, e.g. {@code alfworld}, {@code retail}, {@code airline}. */
    String name();

    /** The task text the agent is given. */
    String task();

    /** The current observation s_t: what the agent sees before it acts. */
    String observation();

    /**
     * The actions that are valid now, sorted. Environments with an open action space (free-text
     * messages) return a representative sample of candidate actions for random agents.
     */
    List<String> admissibleActions();

    /**
     * An action that is not valid now but reads like one an agent would write when it misreads the
     * state (ALFWorld: a command of the game's grammar on its own objects and receptacles that gets
     * {@code Nothing happens.}; tau2: a read whose arguments name nothing, answered {@code Error:
     * ...}). The paper's trajectories contain such actions, and a world model must learn what they
     * do. Deterministic for a seeded {@code rng}; changes nothing.
     */
    String inadmissibleAction(RandomGenerator rng);

    /** The next action of the environment's scripted expert, or empty when it has none. */
    Optional<String> expertAction();

    /** Applies the action and returns what followed. Never throws for a bad action. */
    Step step(String action);

    /** True once the goal is reached, the episode was ended by the user, or the step cap is hit. */
    boolean done();

    /**
     * Facts about this episode that every transition carries in its metadata (e.g. the task type),
     * so consumers can slice the log without parsing texts. Empty unless an environment adds some.
     */
    default Map<String, String> metadata() {
        return Map.of();
    }

    /** What an action produced. */
    record Step(
            String observation,
            NextStateKind kind,
            double reward,
            boolean done,
            boolean actionValid) {}
}
