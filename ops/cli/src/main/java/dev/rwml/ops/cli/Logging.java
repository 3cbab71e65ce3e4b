package dev.rwml.ops.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/** Switches the command's logback levels; the quiet defaults live in {@code logback.xml}. */
final class Logging {

    /** The system property naming the log file; {@code logback.xml} reads it. */
    static final String FILE_PROPERTY = "rwml.log.file";

    private Logging() {}

    /**
     * Chooses the log file before logging starts: {@code $RWML_LOG_DIR} (default {@code
     * .rwml/logs}) and one file per command, e.g. {@code .rwml/logs/predict.log}.
     */
    static void chooseFile(final String[] args) {
        if (System.getProperty(FILE_PROPERTY) != null) {
            return;
        }
        String command = "rwml";
        for (final String arg : args) {
            if (!arg.startsWith("-")) {
                command = arg.replaceAll("[^A-Za-z0-9_-]", "_");
                break;
            }
        }
        final String dir = System.getenv().getOrDefault("RWML_LOG_DIR", ".rwml/logs");
        System.setProperty(
                FILE_PROPERTY,
                java.nio.file.Path.of(dir, command + ".log").toAbsolutePath().toString());
    }

    static void verbose() {
        TerminalLogFilter.showEverything();
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        set(context, "dev.rwml", Level.DEBUG);
        set(context, "org.apache.kafka", Level.INFO);
        set(context, "kafka", Level.INFO);
        set(context, Logger.ROOT_LOGGER_NAME, Level.INFO);
    }

    private static void set(final LoggerContext context, final String name, final Level level) {
        context.getLogger(name).setLevel(level);
    }
}
