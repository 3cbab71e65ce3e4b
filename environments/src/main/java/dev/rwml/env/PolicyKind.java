package dev.rwml.env;

import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.agent.ExpertAgent;
import dev.rwml.env.agent.RandomAgent;

/** The scripted policies a producer's agents can follow. */
public enum PolicyKind {
    /** The environment's scripted expert. */
    EXPERT,
    /** Uniform among the admissible actions. */
    RANDOM,
    /**
     * The expert, with a random admissible action with probability epsilon and an inadmissible one
     * (it does nothing) with probability invalidRate.
     */
    EPSILON;

    /**
     * The default share of inadmissible actions of {@link #EPSILON}: the paper's trajectories
     * contain actions that do nothing, and the world model must learn that they do.
     */
    public static final double DEFAULT_INVALID_RATE = 0.1;

    /** The agent of this policy; the rates matter only for {@link #EPSILON}. */
    public Agent agent(final double epsilon, final double invalidRate) {
        return switch (this) {
            case EXPERT -> new ExpertAgent();
            case RANDOM -> new RandomAgent();
            case EPSILON -> new EpsilonExpertAgent(epsilon, invalidRate);
        };
    }
}
