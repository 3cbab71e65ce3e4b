package dev.rwml.runtime.errors;

import java.util.Optional;

/**
 * Raised when another service a stage calls over HTTP (an embedding server, an inference server)
 * cannot answer a call. {@link #isRetriable()} tells an outage (unreachable, timed out, 5xx, 408,
 * 429, an unusable answer: retried, never dead-lettered) from a refusal of the request (any other
 * 4xx, which fails the same way every time: the dead-letter handlers name the answer in the
 * letter's reason, {@code <SERVICE>_HTTP_<status>}), and {@link #refusedCredentials()} a refused
 * key (401, 403), which stops the stage instead of dead-lettering every record alike.
 */
public abstract class ServiceException extends RuntimeException implements Outage {

    private static final long serialVersionUID = 1L;

    /** {@link #httpStatus()} when the server gave no answer. */
    public static final int NO_STATUS = -1;

    private final String service;
    private final int httpStatus;

    /**
     * A failure of {@code service} (the reason's prefix, e.g. {@code EMBEDDING}) with the HTTP
     * status it answered, or {@link #NO_STATUS}.
     */
    protected ServiceException(
            final String service,
            final String message,
            final int httpStatus,
            final Throwable cause) {
        super(message, cause);
        this.service = service;
        this.httpStatus = httpStatus;
    }

    /** Whether a server may answer {@code httpStatus} while it is down or overloaded. */
    public static boolean isRetriableStatus(final int httpStatus) {
        return httpStatus >= 500 || httpStatus == 408 || httpStatus == 429;
    }

    /** The HTTP status the server answered, or {@link #NO_STATUS}. */
    public final int httpStatus() {
        return httpStatus;
    }

    /** The dead-letter reason {@code <SERVICE>_HTTP_<status>}; empty without an answer. */
    public final Optional<String> deadLetterReason() {
        return httpStatus == NO_STATUS
                ? Optional.empty()
                : Optional.of(service + "_HTTP_" + httpStatus);
    }

    /** Whether the server refused the credentials (401) or their permission (403). */
    public final boolean refusedCredentials() {
        return httpStatus == 401 || httpStatus == 403;
    }

    @Override
    public final boolean isRetriable() {
        return httpStatus == NO_STATUS || isRetriableStatus(httpStatus);
    }
}
