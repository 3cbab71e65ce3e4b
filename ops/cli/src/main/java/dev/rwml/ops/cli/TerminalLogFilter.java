package dev.rwml.ops.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the terminal quiet: it shows the project's own warnings and errors, in its words, and
 * leaves library logs (Kafka, the registry, DJL) to the log file, saying once where that is. With
 * {@code --verbose} everything passes.
 */
public final class TerminalLogFilter extends Filter<ILoggingEvent> {

    private static volatile boolean verbose;
    private static final AtomicBoolean TOLD = new AtomicBoolean();

    /** Lets every event through from now on ({@code --verbose}). */
    static void showEverything() {
        verbose = true;
    }

    @Override
    public FilterReply decide(final ILoggingEvent event) {
        if (verbose) {
            return FilterReply.NEUTRAL;
        }
        if (event.getLoggerName().startsWith("dev.rwml")) {
            return event.getLevel().isGreaterOrEqual(Level.WARN)
                    ? FilterReply.NEUTRAL
                    : FilterReply.DENY;
        }
        if (event.getLevel().isGreaterOrEqual(Level.WARN) && TOLD.compareAndSet(false, true)) {
            System.err.println(
                    "rwml: library warnings go to "
                            + System.getProperty(Logging.FILE_PROPERTY, "the log file")
                            + " (--verbose shows them here)");
        }
        return FilterReply.DENY;
    }
}
