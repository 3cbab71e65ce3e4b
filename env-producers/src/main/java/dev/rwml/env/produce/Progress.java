package dev.rwml.env.produce;

import java.time.Duration;

/**
 * A snapshot of a producer's or importer's progress.
 *
 * @param episodes episodes whose transitions were all handed to the Kafka producer
 * @param transitions transitions the broker acknowledged
 * @param sendErrors transitions the broker refused or that timed out after the client's retries
 * @param elapsed time since the run started
 */
public record Progress(long episodes, long transitions, long sendErrors, Duration elapsed) {

    /** Acknowledged transitions per second since the start. */
    public double transitionsPerSecond() {
        final double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? 0 : transitions / seconds;
    }
}
