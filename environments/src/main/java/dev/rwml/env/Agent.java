package dev.rwml.env;

import java.util.random.RandomGenerator;

/** A policy that chooses the next action of an episode. */
public interface Agent {

    /** The policy name recorded on every transition, e.g. {@code expert} or {@code random}. */
    String name();

    /** The next action; {@code rng} is the episode's own generator, so episodes replay exactly. */
    String act(Environment env, RandomGenerator rng);
}
