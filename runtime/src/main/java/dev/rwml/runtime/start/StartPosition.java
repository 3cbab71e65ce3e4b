package dev.rwml.runtime.start;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Where a new run starts reading the transitions log: after what version 0 was trained on (the
 * default), its beginning, its end, or the first record at or after a point in time.
 *
 * <p>The position applies only when the run's consumer group has no committed offsets yet; a
 * restarted run always continues from its committed offsets, which is what keeps its output exactly
 * once.
 *
 * @param kind which of the three positions
 * @param timestamp the point in time for {@link Kind#TIMESTAMP}, null otherwise
 */
public record StartPosition(Kind kind, Instant timestamp) {

    /** The four ways to start. */
    public enum Kind {
        /**
         * Per partition, the end of version 0's lineage: the base model is not trained again on its
         * own pretraining slice; a partition outside the lineage starts at its beginning.
         */
        AFTER_BASE,
        EARLIEST,
        LATEST,
        TIMESTAMP
    }

    /** Starts after the records version 0 was trained on. */
    public static final StartPosition AFTER_BASE = new StartPosition(Kind.AFTER_BASE, null);

    /** Starts at the beginning of the log. */
    public static final StartPosition EARLIEST = new StartPosition(Kind.EARLIEST, null);

    /** Starts after the last record present at start-up. */
    public static final StartPosition LATEST = new StartPosition(Kind.LATEST, null);

    /** Validates that a timestamp is given exactly when the kind needs one. */
    public StartPosition {
        if (kind == null) {
            throw new IllegalArgumentException("start position kind must not be null");
        }
        if ((kind == Kind.TIMESTAMP) != (timestamp != null)) {
            throw new IllegalArgumentException(
                    "start position "
                            + kind
                            + " "
                            + (timestamp == null ? "needs a timestamp" : "takes no timestamp"));
        }
    }

    /** Starts at the first record whose timestamp is at or after the given instant. */
    public static StartPosition at(final Instant timestamp) {
        return new StartPosition(Kind.TIMESTAMP, timestamp);
    }

    /** The setting of every stage that reads the transitions log. */
    public static final String SETTING = "start.from";

    /** Declares {@link #SETTING}, defaulting to {@code after-base}. */
    public static ConfigDef define(final ConfigDef def) {
        return def.define(
                SETTING,
                ConfigDef.Type.STRING,
                "after-base",
                (name, value) -> parse(value.toString()),
                ConfigDef.Importance.HIGH,
                "after-base (per partition, the end of what version 0 was trained on), earliest,"
                        + " latest, an ISO-8601 instant or epoch millis (a new consumer group only;"
                        + " an existing one resumes).");
    }

    /**
     * Parses {@code after-base}, {@code earliest}, {@code latest}, an ISO-8601 instant ({@code
     * 2026-11-30T10:00:00Z}) or epoch milliseconds.
     */
    public static StartPosition parse(final String text) {
        final String value = text == null ? "" : text.trim();
        switch (value.toLowerCase(Locale.ROOT)) {
            case "after-base":
                return AFTER_BASE;
            case "earliest":
                return EARLIEST;
            case "latest":
                return LATEST;
            default:
                break;
        }
        if (value.matches("\\d+")) {
            return at(Instant.ofEpochMilli(Long.parseLong(value)));
        }
        try {
            return at(Instant.parse(value));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "start position '"
                            + value
                            + "' is not after-base, earliest, latest, an ISO-8601 instant such as"
                            + " 2026-11-30T10:00:00Z, or epoch milliseconds",
                    e);
        }
    }

    @Override
    public String toString() {
        return kind == Kind.TIMESTAMP
                ? timestamp.toString()
                : kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
