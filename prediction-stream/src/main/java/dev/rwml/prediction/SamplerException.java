package dev.rwml.prediction;

import dev.rwml.runtime.errors.Outage;
import dev.rwml.runtime.errors.ServiceAnswer;
import java.util.Optional;

/**
 * Raised when the remote sampler's server cannot answer a call; {@link #isRetriable()} tells an
 * outage (unreachable, timed out, 5xx, 408, 429, an unusable answer: retried, never dead-lettered)
 * from a refusal of the request (any other 4xx: the transition is dead-lettered with the reason),
 * and {@link #refusedCredentials()} a refused API key (401, 403: the stage stops).
 */
public final class SamplerException extends RuntimeException implements Outage, ServiceAnswer {

    private static final long serialVersionUID = 1L;

    /** {@link #httpStatus()} when the server gave no answer. */
    public static final int NO_STATUS = -1;

    private final int httpStatus;

    /** The server could not be reached or answered something unusable: retried as an outage. */
    public SamplerException(final String message, final Throwable cause) {
        this(message, NO_STATUS, cause);
    }

    private SamplerException(final String message, final int httpStatus, final Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
    }

    /** The server answered the non-2xx {@code httpStatus}; the message says what to do. */
    public static SamplerException ofHttpStatus(final int httpStatus, final String message) {
        return new SamplerException(message, httpStatus, null);
    }

    /** Whether a server may answer {@code httpStatus} while it is down or overloaded. */
    public static boolean isRetriableStatus(final int httpStatus) {
        return httpStatus >= 500 || httpStatus == 408 || httpStatus == 429;
    }

    /** The HTTP status the server answered, or {@link #NO_STATUS}. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The dead-letter reason {@code SAMPLER_HTTP_<status>} when the server answered. */
    @Override
    public Optional<String> deadLetterReason() {
        return httpStatus == NO_STATUS
                ? Optional.empty()
                : Optional.of("SAMPLER_HTTP_" + httpStatus);
    }

    /** Whether the server refused the API key (401) or its permission (403). */
    @Override
    public boolean refusedCredentials() {
        return httpStatus == 401 || httpStatus == 403;
    }

    @Override
    public boolean isRetriable() {
        return httpStatus == NO_STATUS || isRetriableStatus(httpStatus);
    }
}
