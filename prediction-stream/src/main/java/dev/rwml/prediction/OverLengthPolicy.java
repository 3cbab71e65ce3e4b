package dev.rwml.prediction;

import java.util.Locale;

/** What the prediction stage does with a transition whose prompt exceeds the token limit. */
public enum OverLengthPolicy {
    /**
     * Drops the oldest history turns until the prompt fits; dead-letters it if it still does not.
     */
    TRUNCATE_HISTORY,
    /** Sends the transition to the dead-letter topic untouched. */
    DEAD_LETTER;

    /** Parses {@code truncate-history} or {@code dead-letter} (case and separator insensitive). */
    public static OverLengthPolicy parse(final String text) {
        final String normalized = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final OverLengthPolicy policy : values()) {
            if (policy.name().equals(normalized)) {
                return policy;
            }
        }
        throw new IllegalArgumentException(
                "prompt.over.length '" + text + "' must be truncate-history or dead-letter");
    }
}
