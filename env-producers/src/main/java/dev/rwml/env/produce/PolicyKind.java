package dev.rwml.env.produce;

import dev.rwml.env.Agent;
import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.agent.ExpertAgent;
import dev.rwml.env.agent.RandomAgent;

/** The scripted policies a producer's agents can follow. */
public enum PolicyKind {
    /** The environment's scripted expert. */
    EXPERT,
    /** Uniform among the admissible actions. */
    RANDOM,
    /** The expert, with a random admissible action with probability epsilon. */
    EPSILON;

    /** The agent of this policy; {@code epsilon} matters only for {@link #EPSILON}. */
    public Agent agent(final double epsilon) {
        return switch (this) {
            case EXPERT -> new ExpertAgent();
            case RANDOM -> new RandomAgent();
            case EPSILON -> new EpsilonExpertAgent(epsilon, 0.0);
        };
    }
}
