package dev.rwml.ops.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The one progress printer of the long-running commands (demo, bench, replay): a line per step,
 * flushed at once so the terminal shows it while the work goes on.
 */
public final class Progress {

    private Progress() {}

    /** Prints {@code format} filled with {@code args} as one line, numbers in the root locale. */
    public static void say(final PrintWriter out, final String format, final Object... args) {
        out.println(String.format(Locale.ROOT, format, args));
        out.flush();
    }
}
