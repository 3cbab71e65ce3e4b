package dev.rwml.ops.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/** Switches the command's logback levels; the quiet defaults live in {@code logback.xml}. */
final class Logging {

    private Logging() {}

    static void verbose() {
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
