package dev.rwml.runtime.lifecycle;

/** Why a stage stopped by itself; its message is what the command prints before exiting 1. */
public final class StageFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with the message to print and its cause (may be null). */
    public StageFailedException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
