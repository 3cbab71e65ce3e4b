package dev.rwml.runtime.errors;

import dev.rwml.schemas.registry.RegistryTlsException;
import dev.rwml.schemas.registry.RegistryUnauthorizedException;
import dev.rwml.schemas.registry.SchemaRegistryException;
import dev.rwml.schemas.registry.UnknownSchemaException;
import dev.rwml.schemas.serde.EventDecodingException;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * The one decision every stage makes about a failure: an outage (broker or registry unreachable,
 * timeouts, 5xx, 429) is retried and blocks progress until it ends; anything else is a fault of the
 * record (undecodable, unknown schema id after the registry answered, invalid fields, oversized)
 * and goes to the dead-letter topic with its reason. A refused login, permission or certificate
 * (Kafka's authentication and authorization errors, a registry's 401/403 or untrusted certificate)
 * is neither: no retry helps and the record is not at fault, so the stage stops and says what to
 * grant or fix ({@link AccessErrors}); so does another service refusing the stage's credentials
 * ({@link ServiceException#refusedCredentials}, e.g. an embedding server's 401). Settings that
 * cannot work where the stage runs ({@link UnfitSettingsException}), and a registry that answers a
 * lookup with neither the schema nor "unknown id" ({@link #isRegistryRefusal}), stop it the same
 * way.
 */
public final class ErrorPolicy {

    /** What to do with a failure. */
    public enum Action {
        /** Keep the record and try it again after a pause; never dead-letter it. */
        RETRY,
        /** Send the record to the dead-letter topic with its reason and go on. */
        DEAD_LETTER,
        /**
         * Stop the stage: access was refused or the settings cannot work, and neither a retry nor
         * the record can change it.
         */
        FAIL
    }

    private ErrorPolicy() {}

    /** The action for {@code error}, judged from the whole chain of causes. */
    public static Action classify(final Throwable error) {
        if (isAccessFailure(error) || isUnfitSettings(error) || isRegistryRefusal(error)) {
            return Action.FAIL;
        }
        return isOutage(error) ? Action.RETRY : Action.DEAD_LETTER;
    }

    /**
     * Whether any cause of {@code error} says that the cluster or registry refused this client: a
     * login (wrong password, unknown user), a permission (a missing ACL) or a certificate (not
     * trusted, wrong host). Kafka's clients raise these at once, without retrying. Another service
     * that refuses the credentials ({@link ServiceException#refusedCredentials}) counts too.
     */
    public static boolean isAccessFailure(final Throwable error) {
        for (Throwable cause = error; cause != null; cause = next(cause)) {
            if (cause instanceof AuthenticationException
                    || cause instanceof AuthorizationException
                    || cause instanceof RegistryUnauthorizedException
                    || cause instanceof RegistryTlsException
                    || (cause instanceof ServiceException answer && answer.refusedCredentials())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the registry answered a lookup with an error that is neither an outage nor "unknown
     * schema id" (e.g. a schema of another type): no record is at fault, and every record would
     * meet it alike, so none is dead-lettered. A decoder's verdict on the bytes ({@link
     * EventDecodingException}, which wraps an unknown id) is the record's fault instead.
     */
    public static boolean isRegistryRefusal(final Throwable error) {
        for (Throwable cause = error; cause != null; cause = next(cause)) {
            if (cause instanceof EventDecodingException) {
                return false;
            }
            if (cause instanceof SchemaRegistryException registry) {
                return !registry.isRetriable() && !(registry instanceof UnknownSchemaException);
            }
        }
        return false;
    }

    /** Whether any cause of {@code error} says that the stage's settings cannot work here. */
    public static boolean isUnfitSettings(final Throwable error) {
        for (Throwable cause = error; cause != null; cause = next(cause)) {
            if (cause instanceof UnfitSettingsException) {
                return true;
            }
        }
        return false;
    }

    /** Whether any cause of {@code error} says that a dependency is unavailable. */
    public static boolean isOutage(final Throwable error) {
        for (Throwable cause = error; cause != null; cause = next(cause)) {
            if (cause instanceof EventDecodingException) {
                // The decoder's verdict on the bytes, whatever it wraps (Avro reports some
                // malformed data as an IOException).
                return false;
            }
            if (cause instanceof SchemaRegistryException registry) {
                return registry.isRetriable();
            }
            if (cause instanceof Outage outage) {
                return outage.isRetriable();
            }
            if (cause instanceof RetriableException
                    || cause instanceof org.apache.kafka.common.errors.TimeoutException
                    || cause instanceof TimeoutException
                    || cause instanceof HttpTimeoutException
                    || cause instanceof java.net.ConnectException
                    || cause instanceof java.net.SocketTimeoutException
                    || cause instanceof java.nio.channels.UnresolvedAddressException) {
                return true;
            }
            if (cause instanceof IOException && cause.getClass() == IOException.class) {
                // A bare IOException is how the JDK's HTTP client reports a dropped connection.
                return true;
            }
        }
        return false;
    }

    private static Throwable next(final Throwable cause) {
        final Throwable next = cause.getCause();
        return next == cause ? null : next;
    }
}
