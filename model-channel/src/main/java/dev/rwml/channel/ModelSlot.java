package dev.rwml.channel;

import dev.rwml.worldmodel.serve.PredictionModel;
import java.time.Duration;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model version the stream threads generate with, swapped in by the model follower while they
 * run.
 *
 * <p>A batch {@linkplain #acquire() leases} the current version and keeps it until the batch is
 * done, so a swap takes effect between batches, never inside one; a replaced version is closed when
 * its last lease is returned.
 */
public final class ModelSlot implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelSlot.class);

    private final Object lock = new Object();
    private Entry current;
    private boolean closed;

    /**
     * Makes {@code model} the version new batches use, if it is newer than the current one; an
     * older or equal version (a follower replaying the log) is closed and ignored.
     *
     * @return whether the model was installed
     */
    public boolean install(final PredictionModel model) {
        final Entry retired;
        synchronized (lock) {
            if (closed) {
                model.close();
                throw new IllegalStateException("model slot is closed; the app is shutting down");
            }
            if (current != null && model.version() <= current.model.version()) {
                LOG.info(
                        "Ignoring model version {}: version {} is already serving",
                        model.version(),
                        current.model.version());
                model.close();
                return false;
            }
            retired = current;
            current = new Entry(model);
            lock.notifyAll();
        }
        LOG.info(
                "Model version {} now serves new batches{}",
                model.version(),
                retired == null ? "" : " (replacing version " + retired.model.version() + ")");
        if (retired != null) {
            retired.retire();
        }
        return true;
    }

    /**
     * Leases the current version for one batch; close the lease when the batch is done.
     *
     * @throws IllegalStateException when no version is loaded yet
     */
    public Lease acquire() {
        synchronized (lock) {
            if (current == null) {
                throw new IllegalStateException(
                        "no model version loaded yet: the app starts its streams only after version"
                                + " 0 arrived on the run's models topic");
            }
            return current.lease();
        }
    }

    /** The serving version, empty before the first one arrives. */
    public OptionalLong version() {
        synchronized (lock) {
            return current == null
                    ? OptionalLong.empty()
                    : OptionalLong.of(current.model.version());
        }
    }

    /** Waits up to {@code timeout} for the first version; true once one serves. */
    public boolean awaitFirst(final Duration timeout) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (current == null && !closed) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return current != null;
        }
    }

    /** Closes the serving version once its leases are returned; later installs are refused. */
    @Override
    public void close() {
        final Entry retired;
        synchronized (lock) {
            closed = true;
            retired = current;
            current = null;
            lock.notifyAll();
        }
        if (retired != null) {
            retired.retire();
        }
    }

    /** One batch's hold on a model version. */
    public static final class Lease implements AutoCloseable {
        private final Entry entry;
        private boolean returned;

        private Lease(final Entry entry) {
            this.entry = entry;
        }

        /** The leased model. */
        public PredictionModel model() {
            return entry.model;
        }

        @Override
        public void close() {
            if (!returned) {
                returned = true;
                entry.release();
            }
        }
    }

    /** A version with its lease count; closed when retired and no lease is out. */
    private static final class Entry {
        private final PredictionModel model;
        private int leases;
        private boolean retired;

        Entry(final PredictionModel model) {
            this.model = model;
        }

        synchronized Lease lease() {
            leases++;
            return new Lease(this);
        }

        synchronized void release() {
            leases--;
            closeIfUnused();
        }

        synchronized void retire() {
            retired = true;
            closeIfUnused();
        }

        private void closeIfUnused() {
            if (retired && leases == 0) {
                LOG.info("Closing model version {}: no batch uses it any more", model.version());
                model.close();
            }
        }
    }
}
