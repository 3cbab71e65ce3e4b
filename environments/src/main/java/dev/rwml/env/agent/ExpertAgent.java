package dev.rwml.env.agent;

import dev.rwml.env.Agent;
import dev.rwml.env.Agent.Choice;
import dev.rwml.env.Environment;
import dev.rwml.events.Turn;
import java.util.List;
import java.util.random.RandomGenerator;

/** Follows the environment's scripted expert. */
public final class ExpertAgent implements Agent {

    /** The policy name recorded on transitions. */
    public static final String NAME = "expert";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Choice act(final Environment env, final List<Turn> history, final RandomGenerator rng) {
        return Choice.scripted(next(env));
    }

    /** The environment's expert action. */
    static String next(final Environment env) {
        return env.expertAction()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        env.name()
                                                + " has no expert action now (no scripted expert, or"
                                                + " the episode is over); use the random agent"));
    }
}
