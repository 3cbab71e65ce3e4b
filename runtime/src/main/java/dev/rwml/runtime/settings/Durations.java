package dev.rwml.runtime.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The one duration syntax of every setting: ISO-8601 ({@code PT0.2S}, {@code PT30S}, {@code PT5M},
 * {@code PT1H}).
 */
public final class Durations {

    private Durations() {}

    /** Parses {@code text} as an ISO-8601 duration, naming {@code key} when it is not one. */
    public static Duration parse(final String key, final String text) {
        try {
            return Duration.parse(text.trim());
        } catch (DateTimeParseException | NullPointerException e) {
            throw new ConfigException(
                    key, text, "expected an ISO-8601 duration such as PT0.2S, PT30S or PT5M");
        }
    }

    /** A validator for durations of at least {@code min}. */
    public static ConfigDef.Validator atLeast(final Duration min) {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(final String name, final Object value) {
                if (value == null) {
                    return;
                }
                if (parse(name, value.toString()).compareTo(min) < 0) {
                    throw new ConfigException(name, value, "must be at least " + min);
                }
            }

            @Override
            public String toString() {
                return "ISO-8601 duration >= " + min;
            }
        };
    }
}
