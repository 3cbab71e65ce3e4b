package dev.rwml.reward.streams;

/** Says why a prediction group was dead-lettered by the join: no transition, or too late. */
public final class JoinMissException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message that names the window and what to check. */
    public JoinMissException(final String message) {
        super(message, null, false, false);
    }
}
