package dev.rwml.runtime.streams;

/** Counts the records a stage sent to its dead-letter topic, by reason and by input topic. */
@FunctionalInterface
public interface DeadLetterCounter {

    /** One more record of topic {@code input} dead-lettered for {@code reason}. */
    void deadLetter(String reason, String input);
}
