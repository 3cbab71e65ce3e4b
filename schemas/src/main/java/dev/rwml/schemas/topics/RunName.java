package dev.rwml.schemas.topics;

import java.util.regex.Pattern;

/**
 * The name of a run (one training lineage), validated because it becomes part of topic names
 * ({@code rwml.<run>.predictions}) and of the stages' application ids.
 *
 * @param value 1 to 64 letters, digits, '_' or '-'
 */
public record RunName(String value) {
    /** The longest run name: leaves room for stage suffixes and Streams' internal topic names. */
    public static final int MAX_LENGTH = 64;

    private static final Pattern VALID = Pattern.compile("[a-zA-Z0-9_-]+");

    public RunName {
        if (value == null
                || value.isEmpty()
                || value.length() > MAX_LENGTH
                || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "run name '"
                            + value
                            + "' is invalid: use 1 to "
                            + MAX_LENGTH
                            + " letters, digits, '_' or '-' (no dots or spaces); it becomes part of"
                            + " topic names such as rwml.<run>.predictions");
        }
    }

    /** Validates and wraps a run name. */
    public static RunName of(final String value) {
        return new RunName(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
