package dev.rwml.env.produce;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Prints progress for a terminal: one line rewritten in place on an interactive terminal, one line
 * per snapshot otherwise (logs and pipes do not understand carriage returns).
 */
public final class ProgressPrinter implements ProgressListener {

    private final PrintWriter out;
    private final boolean interactive;
    private final String label;
    private int lastLength;

    /**
     * @param out where to print
     * @param interactive true on a TTY: rewrite the line instead of adding lines
     * @param label what runs, e.g. {@code alfworld/train}
     */
    public ProgressPrinter(final PrintWriter out, final boolean interactive, final String label) {
        this.out = out;
        this.interactive = interactive;
        this.label = label;
    }

    /** The status text of a snapshot, without line control. */
    public String format(final Progress p) {
        return String.format(
                Locale.ROOT,
                "%s: %d episodes, %d transitions, %.1f transitions/s%s",
                label,
                p.episodes(),
                p.transitions(),
                p.transitionsPerSecond(),
                p.sendErrors() == 0 ? "" : ", " + p.sendErrors() + " send errors");
    }

    @Override
    public synchronized void update(final Progress progress) {
        final String line = format(progress);
        if (interactive) {
            // Pad with spaces so a shorter line fully covers the previous one.
            out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
            lastLength = line.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    @Override
    public synchronized void finished(final Progress progress) {
        update(progress);
        if (interactive) {
            out.println();
            out.flush();
        }
    }
}
