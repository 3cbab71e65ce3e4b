package dev.rwml.scoring.embed;

import dev.rwml.runtime.errors.ServiceException;

/**
 * Raised when an embedding model cannot embed a batch: an outage of the model (retried) or a server
 * that refused the request (dead-lettered as {@code EMBEDDING_HTTP_<status>}).
 */
public final class EmbeddingException extends ServiceException {

    private static final long serialVersionUID = 1L;

    /** The model failed without an HTTP answer (or with an unusable one): retried as an outage. */
    public EmbeddingException(final String message) {
        this(message, NO_STATUS, null);
    }

    /** The model could not be reached or answered something unusable: retried as an outage. */
    public EmbeddingException(final String message, final Throwable cause) {
        this(message, NO_STATUS, cause);
    }

    private EmbeddingException(final String message, final int httpStatus, final Throwable cause) {
        super("EMBEDDING", message, httpStatus, cause);
    }

    /** The server answered the non-2xx {@code httpStatus}; the message says what to do. */
    public static EmbeddingException ofHttpStatus(final int httpStatus, final String message) {
        return new EmbeddingException(message, httpStatus, null);
    }
}
