package dev.rwml.runtime.streams;

/** Counts the records a stage sent to its dead-letter topic, by reason. */
@FunctionalInterface
public interface DeadLetterCounter {

    /** One more record dead-lettered for {@code reason}. */
    void deadLetter(String reason);
}
