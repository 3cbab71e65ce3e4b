package dev.rwml.runtime.lifecycle;

import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.retry.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How a stage answers a crash of its processing thread, the same for every stage: an outage (see
 * {@link ErrorPolicy}) is waited out with exponential backoff and never counts; any other crash
 * restarts the thread at most {@code maxRestarts} times within a sliding {@code window}, and past
 * that the stage gives up, so a persistent fault stops the process (non-zero exit) instead of
 * looping. A refused login, permission or certificate ({@link ErrorPolicy#isAccessFailure}) and
 * settings that cannot work ({@link ErrorPolicy#isUnfitSettings}) stop the stage at once.
 */
public final class RestartPolicy {

    /** What to do after a crash. */
    public record Decision(boolean restart, Duration delay, String reason) {}

    private final Backoff outages = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));

    private final int maxRestarts;
    private final Duration window;
    private final Clock clock;
    private final Deque<Long> restarts = new ArrayDeque<>();

    /** A policy allowing {@code maxRestarts} restarts for faults per {@code window}. */
    public RestartPolicy(final int maxRestarts, final Duration window, final Clock clock) {
        if (maxRestarts < 0 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException(
                    "restart.max must be >= 0 and restart.window positive, got "
                            + maxRestarts
                            + " and "
                            + window);
        }
        this.maxRestarts = maxRestarts;
        this.window = window;
        this.clock = clock;
    }

    /** Decides what follows {@code error}; call once per crash. */
    public synchronized Decision onCrash(final Throwable error) {
        if (ErrorPolicy.isAccessFailure(error)) {
            // A refused login, ACL or certificate fails the same way on every restart.
            return new Decision(
                    false,
                    Duration.ZERO,
                    "access refused; a restart cannot help: fix the credentials, ACLs or"
                            + " truststore and start the stage again");
        }
        if (ErrorPolicy.isUnfitSettings(error)) {
            return new Decision(
                    false,
                    Duration.ZERO,
                    "the settings cannot work here; a restart cannot help: change them as the"
                            + " error says and start the stage again");
        }
        if (ErrorPolicy.isOutage(error)) {
            final Duration delay = outages.next();
            return new Decision(
                    true, delay, "outage (" + error.getMessage() + "); retrying in " + delay);
        }
        outages.reset();
        final long now = clock.millis();
        while (!restarts.isEmpty() && now - restarts.peekFirst() >= window.toMillis()) {
            restarts.removeFirst();
        }
        if (restarts.size() < maxRestarts) {
            restarts.addLast(now);
            return new Decision(
                    true,
                    Duration.ZERO,
                    "restart " + restarts.size() + " of " + maxRestarts + " allowed per " + window);
        }
        return new Decision(
                false,
                Duration.ZERO,
                maxRestarts
                        + " restarts within "
                        + window
                        + " did not help; fix the cause and start the stage again (it resumes"
                        + " from its committed offsets)");
    }

    /** Forgets the outage streak once the stage made progress again. */
    public synchronized void onProgress() {
        outages.reset();
    }
}
