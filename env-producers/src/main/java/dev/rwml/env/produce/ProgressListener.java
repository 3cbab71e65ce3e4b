package dev.rwml.env.produce;

/** Receives progress snapshots while a producer or importer runs (e.g. to draw a status line). */
public interface ProgressListener {

    /** A listener that ignores every snapshot. */
    ProgressListener NONE = progress -> {};

    /** A periodic snapshot; called from a single reporting thread. */
    void update(Progress progress);

    /** The last snapshot, once everything was flushed. */
    default void finished(final Progress progress) {
        update(progress);
    }
}
