package dev.rwml.env.produce;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Spaces permits evenly at a fixed rate shared by every caller; {@link #release()} lets every
 * waiting and later caller through at once (used on shutdown to flush the current episodes).
 */
final class RateLimiter {

    /** Waits for a number of nanoseconds, or less when released. */
    interface Waiter {
        void await(CountDownLatch released, long nanos) throws InterruptedException;
    }

    private final long nanosPerPermit;
    private final LongSupplier nanoTime;
    private final Waiter waiter;
    private final CountDownLatch released = new CountDownLatch(1);
    private long next;
    private boolean started;

    RateLimiter(final double permitsPerSecond, final LongSupplier nanoTime, final Waiter waiter) {
        if (!(permitsPerSecond > 0) || Double.isInfinite(permitsPerSecond)) {
            throw new IllegalArgumentException(
                    "rate must be a positive number of transitions per second, got "
                            + permitsPerSecond);
        }
        this.nanosPerPermit = Math.max(1L, Math.round(1e9 / permitsPerSecond));
        this.nanoTime = nanoTime;
        this.waiter = waiter;
    }

    /** A limiter on the system's monotonic clock. */
    static RateLimiter of(final double permitsPerSecond) {
        return new RateLimiter(
                permitsPerSecond,
                System::nanoTime,
                (latch, nanos) -> latch.await(nanos, TimeUnit.NANOSECONDS));
    }

    /** Blocks until the caller's permit is due, or returns at once after {@link #release()}. */
    void acquire() throws InterruptedException {
        if (released.getCount() == 0) {
            return;
        }
        final long wait;
        synchronized (this) {
            final long now = nanoTime.getAsLong();
            if (!started || next < now) {
                // Idle time is not banked: a pause must not allow a burst afterwards.
                next = now;
                started = true;
            }
            wait = next - now;
            next += nanosPerPermit;
        }
        if (wait > 0) {
            waiter.await(released, wait);
        }
    }

    /** Stops limiting, for good. */
    void release() {
        released.countDown();
    }
}
