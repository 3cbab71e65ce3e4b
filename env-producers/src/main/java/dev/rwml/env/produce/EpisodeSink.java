package dev.rwml.env.produce;

import dev.rwml.env.EpisodeRunner;

/**
 * Where a producer's finished episodes go: {@link TransitionPublisher} for scripted agents (each
 * transition on its own), {@link RolloutPublisher} for a run's model (each episode with its
 * rollout, in one transaction). Thread-safe: the agents of a run share one sink.
 */
interface EpisodeSink extends AutoCloseable {

    /** Whether an earlier run of the same command already published episode {@code episodeId}. */
    boolean published(String episodeId);

    /**
     * Publishes episode {@code n}, taking one permit of {@code throttle} per transition.
     *
     * @throws org.apache.kafka.common.KafkaException or IllegalStateException when the episode
     *     cannot be handed over at all: the run stops, the cause says what to fix
     */
    void publish(int n, String episodeId, EpisodeRunner.Episode episode, Throttle throttle)
            throws InterruptedException;

    /** Blocks until everything published so far is acknowledged or failed. */
    void flush();

    /** Transitions the broker acknowledged so far. */
    long acknowledged();

    /** Transitions that failed after the client's retries. */
    long errors();

    @Override
    void close();

    /** The shared rate limit, one permit per transition. */
    @FunctionalInterface
    interface Throttle {
        void acquire() throws InterruptedException;
    }
}
