package dev.rwml.env.agent;

import dev.rwml.env.Agent;
import dev.rwml.env.Environment;
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
    public String act(final Environment env, final RandomGenerator rng) {
        return env.expertAction()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        env.name()
                                                + " has no expert action now (no scripted expert, or"
                                                + " the episode is over); use the random agent"));
    }
}
