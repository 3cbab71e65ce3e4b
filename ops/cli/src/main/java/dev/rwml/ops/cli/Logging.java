package dev.rwml.ops.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
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
