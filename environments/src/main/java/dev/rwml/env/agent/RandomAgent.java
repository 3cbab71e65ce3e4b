package dev.rwml.env.agent;

import dev.rwml.env.Agent;
import dev.rwml.env.Agent.Choice;
import dev.rwml.env.Environment;
import dev.rwml.events.Turn;
import java.util.List;
import java.util.random.RandomGenerator;

/** Picks uniformly among the admissible actions: the exploration policy of the paper's data. */
public final class RandomAgent implements Agent {

    /** The policy name recorded on transitions. */
    public static final String NAME = "random";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Choice act(final Environment env, final List<Turn> history, final RandomGenerator rng) {
        return Choice.scripted(pick(env, rng));
    }

    /** A uniform draw among the admissible actions. */
    static String pick(final Environment env, final RandomGenerator rng) {
        final List<String> actions = env.admissibleActions();
        if (actions.isEmpty()) {
            throw new IllegalStateException(
                    env.name() + " offers no admissible action; the random agent cannot act");
        }
        return actions.get(rng.nextInt(actions.size()));
    }
}
