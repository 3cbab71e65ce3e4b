package dev.rwml.env.tau2;

/**
 * A tool refused a call: either the call itself was malformed (a missing or mistyped argument,
 * which makes the action invalid) or it broke a rule of the domain's state (the call was valid, the
 * world said no). Either way the database is left unchanged.
 */
public final class ToolError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean invalidCall;

    private ToolError(final String message, final boolean invalidCall) {
        super(message, null, false, false);
        this.invalidCall = invalidCall;
    }

    /** A breach of a state rule (e.g. cancelling a delivered order). */
    public static ToolError rule(final String message) {
        return new ToolError(message, false);
    }

    /** A malformed call: missing, mistyped or out-of-range argument. */
    public static ToolError badArgument(final String message) {
        return new ToolError(message, true);
    }

    /** True when the call itself was malformed rather than refused by a rule. */
    public boolean invalidCall() {
        return invalidCall;
    }
}
