package dev.rwml.runtime.errors;

/**
 * Settings a stage cannot work with where it runs, found once it has started (a training step that
 * cannot fit in the memory it has): no retry, restart or dead letter helps, so the stage stops at
 * once and the message says what to change.
 */
public final class UnfitSettingsException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The settings' fault, saying what to change. */
    public UnfitSettingsException(final String message) {
        super(message);
    }
}
