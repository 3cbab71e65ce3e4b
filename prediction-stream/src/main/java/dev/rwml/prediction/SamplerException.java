package dev.rwml.prediction;

import dev.rwml.runtime.errors.ServiceException;

/**
 * Raised when the remote sampler's server cannot answer a call: an outage (retried, never
 * dead-lettered), a refusal of the request (the transition is dead-lettered as {@code
 * SAMPLER_HTTP_<status>}) or a refused API key (the stage stops).
 */
public final class SamplerException extends ServiceException {

    private static final long serialVersionUID = 1L;

    /** The server could not be reached or answered something unusable: retried as an outage. */
    public SamplerException(final String message, final Throwable cause) {
        this(message, NO_STATUS, cause);
    }

    private SamplerException(final String message, final int httpStatus, final Throwable cause) {
        super("SAMPLER", message, httpStatus, cause);
    }

    /** The server answered the non-2xx {@code httpStatus}; the message says what to do. */
    public static SamplerException ofHttpStatus(final int httpStatus, final String message) {
        return new SamplerException(message, httpStatus, null);
    }
}
