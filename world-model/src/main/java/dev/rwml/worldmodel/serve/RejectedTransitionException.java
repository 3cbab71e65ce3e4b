package dev.rwml.worldmodel.serve;

/**
 * A transition a world model will not generate for: invalid fields, or a prompt over the token
 * limit; it goes to the dead-letter topic with this message.
 */
public final class RejectedTransitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with the reason the dead letter carries. */
    public RejectedTransitionException(final String message) {
        super(message);
    }
}
