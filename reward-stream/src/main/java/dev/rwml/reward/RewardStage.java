package dev.rwml.reward;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.scoring.embed.CachingEmbedder;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A running reward stage: its Kafka Streams instance, embedding cache and metrics; closing it stops
 * the stage.
 *
 * @param config what it runs with
 * @param streams the Kafka Streams instance
 * @param embedder the cached embedding model
 * @param metrics its meters
 * @param termination completes when the streams stop (exceptionally when they died)
 */
public record RewardStage(
        RewardConfig config,
        KafkaStreams streams,
        CachingEmbedder embedder,
        RewardMetrics metrics,
        CompletableFuture<Void> termination)
        implements RunningStage {

    @Override
    public StageName name() {
        return StageName.REWARD;
    }

    /** The Kafka Streams state. */
    public KafkaStreams.State state() {
        return streams.state();
    }

    /**
     * Stops the stage, waiting for in-flight work to commit ({@link StreamsLifecycle#close}), and
     * leaves the group so the partitions move to another instance at once.
     */
    @Override
    public void close() {
        StreamsLifecycle.close(streams);
    }
}
