package dev.rwml.reward;

import dev.rwml.reward.embed.CachingEmbedder;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A running reward stage: its Kafka Streams instance, embedding cache and metrics; closing it stops
 * the stage.
 *
 * @param config what it runs with
 * @param streams the Kafka Streams instance
 * @param embedder the cached embedding model
 * @param metrics its meters
 */
public record RewardStage(
        RewardConfig config, KafkaStreams streams, CachingEmbedder embedder, RewardMetrics metrics)
        implements AutoCloseable {

    /** The Kafka Streams state. */
    public KafkaStreams.State state() {
        return streams.state();
    }

    /** Stops the stage, waiting up to 30 s for in-flight work to commit. */
    @Override
    public void close() {
        streams.close(Duration.ofSeconds(30));
    }
}
