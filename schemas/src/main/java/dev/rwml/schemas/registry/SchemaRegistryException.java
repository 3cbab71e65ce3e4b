package dev.rwml.schemas.registry;

/**
 * Base of every error the schema registry clients raise; subclasses say what went wrong and {@link
 * #isRetriable()} says whether trying again later can help.
 */
public class SchemaRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** HTTP status of the failed call, or -1 when there was no response. */
    private final int httpStatus;

    /** The registry's {@code error_code}, or -1 when the body carried none. */
    private final int errorCode;

    public SchemaRegistryException(
            final String message,
            final int httpStatus,
            final int errorCode,
            final Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public SchemaRegistryException(
            final String message, final int httpStatus, final int errorCode) {
        this(message, httpStatus, errorCode, null);
    }

    public int httpStatus() {
        return httpStatus;
    }

    public int errorCode() {
        return errorCode;
    }

    /** True when the same call may succeed later without any change (server errors, throttling). */
    public boolean isRetriable() {
        return httpStatus >= 500 || httpStatus == 429;
    }
}
