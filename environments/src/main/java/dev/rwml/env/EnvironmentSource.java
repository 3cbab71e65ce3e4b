package dev.rwml.env;

import java.util.Objects;
import java.util.function.LongFunction;

/**
 * Where episodes come from: the environment's identity as recorded on transitions, and a factory
 * that builds the episode for a seed (the same seed must give the same episode).
 *
 * @param name the environment family, e.g. {@code alfworld} or {@code retail}
 * @param version the version of the environment's behaviour
 * @param split the data split, e.g. {@code train}, {@code valid_unseen}
 * @param factory builds the environment of one episode from its seed
 */
public record EnvironmentSource(
        String name, String version, String split, LongFunction<Environment> factory) {

    public EnvironmentSource {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(factory, "factory");
    }

    /** The environment of the episode with this seed. */
    public Environment create(final long seed) {
        return factory.apply(seed);
    }
}
