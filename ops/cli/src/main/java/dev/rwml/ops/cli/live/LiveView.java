package dev.rwml.ops.cli.live;

import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.RunOutput;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.Display;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows a command's {@link LiveFacts} while it works: on a terminal the {@link LivePanel#panel}
 * redrawn in place by JLine's {@link Display}; on a pipe, in CI or on a dumb terminal the {@link
 * LivePanel#plain} lines, at most every {@code plainEvery}. Closing it leaves the last facts on
 * screen as ordinary lines in either form. On a terminal the plain lines also go to the command's
 * log file at the plain form's pace, so the log keeps what the panel overwrote. Thread-safe.
 */
public final class LiveView implements RunOutput.Live {

    /** How often the plain form prints on a pipe, unless a command says otherwise. */
    public static final Duration PLAIN_EVERY = Duration.ofSeconds(15);

    /** Columns assumed when the terminal does not say (a pseudo-terminal of size 0). */
    static final int DEFAULT_WIDTH = 100;

    private static final Logger LOG = LoggerFactory.getLogger(LiveView.class);

    private final PrintWriter out;
    private final Terminal terminal;
    private final Display display;
    private final Duration plainEvery;
    private long lastPlain;
    private LiveFacts last;
    private boolean lastPrinted;

    private LiveView(final PrintWriter out, final Terminal terminal, final Duration plainEvery) {
        this.out = out;
        this.terminal = terminal;
        this.display = terminal == null ? null : new Display(terminal, false);
        this.plainEvery = plainEvery;
    }

    /**
     * A view on {@code out}: the panel when {@code interactive} and the system terminal is a real
     * one, the plain lines otherwise.
     *
     * @param out the command's output (standard output, or a test's writer)
     * @param interactive whether {@code out} is a terminal ({@link #interactive()} for standard
     *     output)
     * @param plainEvery how often the plain form prints
     */
    public static LiveView open(
            final PrintWriter out, final boolean interactive, final Duration plainEvery) {
        return new LiveView(out, interactive ? SystemTerminal.get() : null, plainEvery);
    }

    /** A view on {@code out} printing the plain form every {@link #PLAIN_EVERY} off a terminal. */
    public static LiveView open(final PrintWriter out, final boolean interactive) {
        return open(out, interactive, PLAIN_EVERY);
    }

    /** Whether standard input and output are a terminal (not a pipe, a file or CI). */
    public static boolean interactive() {
        return System.console() != null;
    }

    /** Whether this view redraws a panel (false: plain lines). */
    public boolean panel() {
        return display != null;
    }

    /** Shows {@code facts}: the panel now, or the plain lines when they are due. */
    @Override
    public synchronized void show(final LiveFacts facts) {
        last = facts;
        lastPrinted = false;
        if (display != null) {
            draw(facts);
        } else if (lastPlain == 0 || System.nanoTime() - lastPlain >= plainEvery.toNanos()) {
            printPlain(facts);
        }
    }

    /** Prints {@code line} above the panel (or as a line on a pipe). */
    public synchronized void say(final String line) {
        if (display != null) {
            display.update(List.of(), 0);
            terminal.writer().println(line);
            terminal.flush();
            if (last != null) {
                draw(last);
            }
        } else {
            out.println(line);
            out.flush();
        }
    }

    /** Leaves the last facts as ordinary lines (the panel's final frame, or the plain lines). */
    @Override
    public synchronized void close() {
        if (last == null) {
            return;
        }
        if (display != null) {
            display.update(List.of(), 0);
            final PrintWriter w = terminal.writer();
            LivePanel.panel(last, width()).forEach(w::println);
            terminal.flush();
            LivePanel.plain(last).forEach(l -> LOG.info("{}", l));
        } else if (!lastPrinted) {
            printPlain(last);
        }
        last = null;
    }

    private void draw(final LiveFacts facts) {
        display.resize(terminal.getHeight() > 0 ? terminal.getHeight() : 50, width());
        display.update(
                LivePanel.panel(facts, width() - 1).stream().map(AttributedString::new).toList(),
                -1);
        terminal.flush();
        if (System.nanoTime() - lastPlain >= plainEvery.toNanos()) {
            LivePanel.plain(facts).forEach(l -> LOG.info("{}", l));
            lastPlain = System.nanoTime();
        }
    }

    private void printPlain(final LiveFacts facts) {
        LivePanel.plain(facts).forEach(out::println);
        out.flush();
        lastPlain = System.nanoTime();
        lastPrinted = true;
    }

    private int width() {
        return terminal.getWidth() > 0 ? terminal.getWidth() : DEFAULT_WIDTH;
    }

    /** The process's one system terminal, opened on first use and left open until exit. */
    private static final class SystemTerminal {
        private static Terminal terminal;
        private static boolean tried;

        /** The terminal on standard output, or null when it is a dumb one or none opens. */
        static synchronized Terminal get() {
            if (!tried) {
                tried = true;
                terminal = open();
            }
            return terminal;
        }

        private static Terminal open() {
            try {
                final Terminal t =
                        TerminalBuilder.builder()
                                .system(true)
                                .systemOutput(TerminalBuilder.SystemOutput.SysOut)
                                // Ctrl-C stays the command's: its own handler stops the work.
                                .nativeSignals(false)
                                .dumb(true)
                                .build();
                if (Terminal.TYPE_DUMB.equals(t.getType())
                        || Terminal.TYPE_DUMB_COLOR.equals(t.getType())) {
                    return null;
                }
                return t;
            } catch (IOException | RuntimeException e) {
                LOG.debug("No terminal for the live panel; plain lines instead", e);
                return null;
            }
        }
    }
}
