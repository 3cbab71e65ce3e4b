package dev.rwml.trainer;

/**
 * Called by the trainer at each {@link FaultPoint}; a test throws from it to simulate a crash at
 * that point. The shipped trainer uses {@link #NONE}.
 */
@FunctionalInterface
public interface FaultHook {

    /** A hook that never interferes. */
    FaultHook NONE = point -> {};

    /** Called when the trainer reaches {@code point}. */
    void at(FaultPoint point);
}
