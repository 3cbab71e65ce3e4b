package dev.rwml.reward;

/** A prediction group or its transition that cannot be scored; it goes to the dead-letter topic. */
public final class InvalidGroupException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message that names the transition and the problem. */
    public InvalidGroupException(final String message) {
        super(message);
    }
}
