package dev.rwml.channel;

/**
 * Told after each chunk of an artifact was handed to the producer; the trainer uses it to inject
 * crashes in the middle of a publish.
 */
@FunctionalInterface
public interface ChunkObserver {

    /** Observes nothing. */
    ChunkObserver NONE = (version, index, count) -> {};

    /** Chunk {@code index} of {@code count} of {@code version} was sent (not yet committed). */
    void sent(long version, int index, int count);
}
