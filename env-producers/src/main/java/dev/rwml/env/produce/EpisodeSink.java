package dev.rwml.env.produce;

import dev.rwml.env.EpisodeRunner;
import java.util.List;

/**
 * Where a producer's finished episodes go: {@link TransitionPublisher} for scripted agents (each
 * transition on its own), {@link RolloutPublisher} for a run's model (each episode with its
 * rollout, in one transaction). Thread-safe: the agents of a run share one sink.
 */
interface EpisodeSink extends AutoCloseable {

    /**
     * Whether an earlier run of the same command already published the episodes of {@code game}.
     */
    boolean published(int game);

    /**
     * Publishes the episodes of one game, taking one permit of {@code throttle} per transition.
     *
     * @throws org.apache.kafka.common.KafkaException or IllegalStateException when the episodes
     *     cannot be handed over at all: the run stops, the cause says what to fix
     */
    void publish(List<Played> game, Throttle throttle) throws InterruptedException;

    /** Blocks until everything published so far is acknowledged or failed. */
    void flush();

    /** Transitions the broker acknowledged so far. */
    long acknowledged();

    /** Transitions that failed after the client's retries. */
    long errors();

    @Override
    void close();

    /**
     * A finished episode and where it belongs.
     *
     * @param n its number under the command's seed
     * @param game the game it played, {@code n / G}
     * @param episodeId its id
     * @param episode its transitions and the agent's choices
     */
    record Played(int n, int game, String episodeId, EpisodeRunner.Episode episode) {}

    /** The shared rate limit, one permit per transition. */
    @FunctionalInterface
    interface Throttle {
        void acquire() throws InterruptedException;
    }
}
