package dev.rwml.env.recorded;

/** A line of a trajectory file that cannot be imported, with its number and the reason. */
public final class MalformedLineException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int lineNumber;
    private final String reason;

    public MalformedLineException(final int lineNumber, final String reason) {
        super("line " + lineNumber + ": " + reason);
        this.lineNumber = lineNumber;
        this.reason = reason;
    }

    /** The 1-based line number. */
    public int lineNumber() {
        return lineNumber;
    }

    /** Why the line was skipped. */
    public String reason() {
        return reason;
    }
}
