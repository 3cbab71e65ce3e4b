package dev.rwml.schemas.retry;

import java.time.Duration;

/**
 * The waits between attempts while a dependency is out: {@code initial}, doubling with each attempt
 * up to {@code max}, and back to {@code initial} once an attempt succeeds. Not thread-safe: one
 * loop owns it.
 */
public final class Backoff {

    private final Duration initial;
    private final Duration max;
    private int attempts;

    /** Waits of {@code initial}, doubling up to {@code max}. */
    public Backoff(final Duration initial, final Duration max) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(
                    "backoff needs 0 < initial <= max, got " + initial + " and " + max);
        }
        this.initial = initial;
        this.max = max;
    }

    /** Counts one more failed attempt and returns how long to wait before the next. */
    public Duration next() {
        attempts++;
        final int doublings = Math.min(attempts - 1, 30);
        final long millis = initial.toMillis() << doublings;
        return millis <= 0 || millis >= max.toMillis() ? max : Duration.ofMillis(millis);
    }

    /** Failed attempts since the last success. */
    public int attempts() {
        return attempts;
    }

    /** An attempt succeeded: the next outage starts from {@code initial} again. */
    public void reset() {
        attempts = 0;
    }
}
