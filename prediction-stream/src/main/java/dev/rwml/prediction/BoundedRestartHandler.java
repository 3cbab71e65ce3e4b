package dev.rwml.prediction;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces a stream thread that died of an unexpected exception, at most {@code maxRestarts} times
 * within a sliding window; past that the error is persistent and the client shuts down rather than
 * loop. Exactly-once keeps the output consistent across each replacement: the failed thread's open
 * transaction is aborted and its records are processed again.
 */
public final class BoundedRestartHandler implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(BoundedRestartHandler.class);

    private final int maxRestarts;
    private final Duration window;
    private final Clock clock;
    private final Deque<Long> restarts = new ArrayDeque<>();

    /** A handler allowing {@code maxRestarts} replacements per {@code window}. */
    public BoundedRestartHandler(final int maxRestarts, final Duration window, final Clock clock) {
        this.maxRestarts = maxRestarts;
        this.window = window;
        this.clock = clock;
    }

    @Override
    public synchronized StreamThreadExceptionResponse handle(final Throwable exception) {
        final long now = clock.millis();
        while (!restarts.isEmpty() && now - restarts.peekFirst() >= window.toMillis()) {
            restarts.removeFirst();
        }
        if (restarts.size() < maxRestarts) {
            restarts.addLast(now);
            LOG.error(
                    "Stream thread died; replacing it (restart {} of {} allowed per {})",
                    restarts.size(),
                    maxRestarts,
                    window,
                    exception);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        LOG.error(
                "Stream thread died after {} restarts within {}; shutting the prediction stage"
                        + " down. Fix the cause below (broker or registry reachable? model"
                        + " loadable?) and start it again; it resumes from its committed offsets",
                maxRestarts,
                window,
                exception);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }
}
