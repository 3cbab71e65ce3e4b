package dev.rwml.env.produce;

import java.time.Duration;
import java.util.Locale;

/**
 * What a producer run published.
 *
 * @param episodes episodes whose transitions were all sent
 * @param transitions transitions the broker acknowledged
 * @param sendErrors transitions that failed after the client's retries
 * @param elapsed wall time of the run, flush included
 * @param stopped true when the run was stopped before all its episodes
 */
public record ProducerResult(
        long episodes, long transitions, long sendErrors, Duration elapsed, boolean stopped) {

    /** Acknowledged transitions per second of wall time. */
    public double transitionsPerSecond() {
        final double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? 0 : transitions / seconds;
    }

    /** A one-line summary for people. */
    public String summary() {
        return String.format(
                Locale.ROOT,
                "%s %d episodes, %d transitions in %.1f s (%.1f transitions/s), %d send errors",
                stopped ? "stopped after" : "published",
                episodes,
                transitions,
                elapsed.toNanos() / 1e9,
                transitionsPerSecond(),
                sendErrors);
    }
}
