package dev.rwml.schemas.serde;

import dev.rwml.events.NextStateKind;
import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;

/**
 * Tells Avro (1.12.2+ refuses to load generated classes it does not trust, enums included) that the
 * event classes of {@code dev.rwml.events} are trusted, so no JVM flag is needed.
 */
public final class TrustedEvents {
    /** The package of the generated event classes. */
    public static final String EVENTS_PACKAGE = "dev.rwml.events";

    private TrustedEvents() {}

    /** Adds the events package to Avro's trusted classes, keeping what was trusted before. */
    public static synchronized void ensureTrusted() {
        // Checked against the current predicate, not a flag: an application may have replaced it.
        if (ClassSecurityValidator.getGlobal().isTrusted(NextStateKind.class)) {
            return;
        }
        final ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
        ClassSecurityValidator.setGlobal(
                new ClassSecurityPredicate() {
                    @Override
                    public boolean isTrusted(final Class<?> type) {
                        return EVENTS_PACKAGE.equals(type.getPackageName())
                                || previous.isTrusted(type);
                    }

                    @Override
                    public void forbiddenClass(final String className) {
                        previous.forbiddenClass(className);
                    }
                });
    }
}
