package dev.rwml.ops.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/** Switches the command's logback levels; the quiet defaults live in {@code logback.xml}. */
final class Logging {

    /** The system property naming the log file; {@code logback.xml} reads it. */
    static final String FILE_PROPERTY = "rwml.log.file";

    private Logging() {}

    /**
     * Chooses the log file before logging starts: one file per command under the command's data
     * directory ({@code --data-dir}, or the demo's {@code --dir}; default {@code .rwml}), e.g.
     * {@code .rwml/logs/predict.log}; {@code $RWML_LOG_DIR} names another folder.
     */
    static void chooseFile(final String[] args) {
        if (System.getProperty(FILE_PROPERTY) != null) {
            return;
        }
        String command = null;
        String dataDir = ".rwml";
        for (int i = 0; i < args.length; i++) {
            final String arg = args[i];
            if (arg.startsWith("--data-dir=") || arg.startsWith("--dir=")) {
                dataDir = arg.substring(arg.indexOf('=') + 1);
            } else if ((arg.equals("--data-dir") || arg.equals("--dir")) && i + 1 < args.length) {
                dataDir = args[++i];
            } else if (command == null && !arg.startsWith("-")) {
                command = arg.replaceAll("[^A-Za-z0-9_-]", "_");
            }
        }
        final String dir = System.getenv().getOrDefault("RWML_LOG_DIR", dataDir + "/logs");
        System.setProperty(
                FILE_PROPERTY,
                Path.of(dir, (command == null ? "rwml" : command) + ".log")
                        .toAbsolutePath()
                        .toString());
    }

    /** The terminal's pattern with stack traces, which it leaves to the log file otherwise. */
    private static final String VERBOSE_PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{30} - %msg%n";

    static void verbose() {
        TerminalLogFilter.showEverything();
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        showStackTraces(context);
        set(context, "dev.rwml", Level.DEBUG);
        set(context, "org.apache.kafka", Level.INFO);
        set(context, "kafka", Level.INFO);
        set(context, Logger.ROOT_LOGGER_NAME, Level.INFO);
    }

    private static void set(final LoggerContext context, final String name, final Level level) {
        context.getLogger(name).setLevel(level);
    }

    private static void showStackTraces(final LoggerContext context) {
        if (context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")
                instanceof ConsoleAppender<ILoggingEvent> console) {
            final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
            encoder.setContext(context);
            encoder.setPattern(VERBOSE_PATTERN);
            encoder.start();
            console.setEncoder(encoder);
        }
    }
}
