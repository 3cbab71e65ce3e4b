package dev.rwml.scoring.embed;

import dev.rwml.runtime.errors.Outage;
import dev.rwml.runtime.errors.ServiceAnswer;
import java.util.Optional;

/**
 * Raised when an embedding model cannot embed a batch; {@link #isRetriable()} tells an outage of
 * the model (unreachable, timed out, 5xx, 429, a malformed answer) from a server that refused the
 * request (any other 4xx), which fails the same way every time.
 */
public final class EmbeddingException extends RuntimeException implements Outage, ServiceAnswer {

    private static final long serialVersionUID = 1L;

    /** {@link #httpStatus()} when the server gave no answer. */
    public static final int NO_STATUS = -1;

    private final int httpStatus;

    /** The model failed without an HTTP answer (or with an unusable one): retried as an outage. */
    public EmbeddingException(final String message) {
        this(message, NO_STATUS, null);
    }

    /** The model could not be reached or answered something unusable: retried as an outage. */
    public EmbeddingException(final String message, final Throwable cause) {
        this(message, NO_STATUS, cause);
    }

    private EmbeddingException(final String message, final int httpStatus, final Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
    }

    /** The server answered the non-2xx {@code httpStatus}; the message says what to do. */
    public static EmbeddingException ofHttpStatus(final int httpStatus, final String message) {
        return new EmbeddingException(message, httpStatus, null);
    }

    /** Whether a server may answer {@code httpStatus} while it is down or overloaded. */
    public static boolean isRetriableStatus(final int httpStatus) {
        return httpStatus >= 500 || httpStatus == 408 || httpStatus == 429;
    }

    /** The HTTP status the server answered, or {@link #NO_STATUS}. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The dead-letter reason {@code EMBEDDING_HTTP_<status>} when the server answered. */
    @Override
    public Optional<String> deadLetterReason() {
        return httpStatus == NO_STATUS
                ? Optional.empty()
                : Optional.of("EMBEDDING_HTTP_" + httpStatus);
    }

    /**
     * Whether the server refused the credentials (HTTP 401) or their permission (403): no group can
     * be embedded until the key is fixed.
     */
    @Override
    public boolean refusedCredentials() {
        return httpStatus == 401 || httpStatus == 403;
    }

    @Override
    public boolean isRetriable() {
        return httpStatus == NO_STATUS || isRetriableStatus(httpStatus);
    }
}
