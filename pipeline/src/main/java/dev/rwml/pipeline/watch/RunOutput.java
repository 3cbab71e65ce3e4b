package dev.rwml.pipeline.watch;

import java.util.Locale;

/**
 * Where a local run (demo, replay, bench) reports what happens for its command to render: a line
 * per step, and the run's live facts while a phase works.
 */
public interface RunOutput {

    /** Shows {@code line} at once. */
    void line(String line);

    /** A live display for one phase of the run; closing it leaves its last facts shown. */
    Live live();

    /** Shows {@code format} filled with {@code args} as one line, numbers in the root locale. */
    default void say(final String format, final Object... args) {
        line(String.format(Locale.ROOT, format, args));
    }

    /** One phase's live display. */
    interface Live extends AutoCloseable {

        /** Shows {@code facts}, now or when the display's pace allows. */
        void show(LiveFacts facts);

        /** Leaves the last facts shown. */
        @Override
        void close();
    }
}
