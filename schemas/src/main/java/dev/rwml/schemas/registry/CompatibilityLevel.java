package dev.rwml.schemas.registry;

import java.util.Locale;

/** Compatibility rules of the Confluent Schema Registry API, checked when a schema registers. */
public enum CompatibilityLevel {
    NONE,
    BACKWARD,
    BACKWARD_TRANSITIVE,
    FORWARD,
    FORWARD_TRANSITIVE,
    FULL,
    FULL_TRANSITIVE;

    /** Parses a level as registries write it, in any case. */
    public static CompatibilityLevel parse(final String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown compatibility level '"
                            + text
                            + "'; expected one of NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD,"
                            + " FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE",
                    e);
        }
    }

    /** True when new schemas must be able to read data written with older ones. */
    public boolean checksBackward() {
        return this == BACKWARD
                || this == BACKWARD_TRANSITIVE
                || this == FULL
                || this == FULL_TRANSITIVE;
    }

    /** True when old schemas must be able to read data written with newer ones. */
    public boolean checksForward() {
        return this == FORWARD
                || this == FORWARD_TRANSITIVE
                || this == FULL
                || this == FULL_TRANSITIVE;
    }

    /** True when the check covers every earlier version, not only the latest. */
    public boolean isTransitive() {
        return name().endsWith("_TRANSITIVE");
    }
}
