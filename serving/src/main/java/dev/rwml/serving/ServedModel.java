package dev.rwml.serving;

import dev.rwml.worldmodel.serve.PredictionModel;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model version a server answers with: the follower {@linkplain #offer offers} each newer
 * version, and the one model thread {@linkplain #take takes} the newest before each batch, closing
 * the one it replaces. Only that thread touches a model, so no batch ever sees its model closed.
 */
final class ServedModel implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServedModel.class);

    private PredictionModel pending;
    private PredictionModel current;
    private long newest = -1;
    private int maxContext;
    private boolean closed;

    /**
     * Makes {@code model} the version the next batch uses when it is newer than every version
     * offered so far; an older one (or any, once closed) is closed at once.
     */
    synchronized void offer(final PredictionModel model) {
        if (closed || model.version() <= newest) {
            model.close();
            return;
        }
        if (pending != null) {
            pending.close();
        }
        pending = model;
        newest = model.version();
        maxContext = model.maxContext();
        notifyAll();
        LOG.info("Model version {} answers from the next batch on", newest);
    }

    /** The model the next batch samples with; called by the model thread only. */
    Optional<PredictionModel> take() {
        final PredictionModel retired;
        synchronized (this) {
            if (pending == null) {
                return Optional.ofNullable(current);
            }
            retired = current;
            current = pending;
            pending = null;
        }
        if (retired != null) {
            retired.close();
        }
        return Optional.of(current);
    }

    /** The newest version offered, which answers the next request; -1 before the first. */
    synchronized long version() {
        return newest;
    }

    /** The context of the newest version, in tokens; 0 before the first. */
    synchronized int maxContext() {
        return maxContext;
    }

    /** Waits up to {@code timeout} for version {@code version} or a newer one to be offered. */
    synchronized boolean awaitVersion(final long version, final Duration timeout)
            throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (newest < version && !closed) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return newest >= version;
    }

    /** Closes every version held; call after the model thread stopped. */
    @Override
    public synchronized void close() {
        closed = true;
        for (final PredictionModel m : new PredictionModel[] {pending, current}) {
            if (m != null) {
                m.close();
            }
        }
        pending = null;
        current = null;
        notifyAll();
    }
}
