package dev.rwml.reward.embed;

/** Raised when an embedding model cannot embed a batch (unreachable server, bad answer). */
public final class EmbeddingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message that says what to check. */
    public EmbeddingException(final String message) {
        super(message);
    }

    /** Creates the exception with a message and its cause. */
    public EmbeddingException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
