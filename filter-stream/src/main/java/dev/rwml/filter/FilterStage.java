package dev.rwml.filter;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.streams.KafkaStreams;

/**
 * A running filter stage: its Kafka Streams instance, the filter model, the embedding cache and
 * metrics; closing it stops the stage and frees the model.
 *
 * @param config what it runs with
 * @param streams the Kafka Streams instance
 * @param model the filter model
 * @param loader the loader that owns the model's native memory
 * @param embedder the cached embedding model
 * @param metrics its meters
 * @param termination completes when the streams stop (exceptionally when they died)
 */
public record FilterStage(
        FilterConfig config,
        KafkaStreams streams,
        PredictionModel model,
        CheckpointModelLoader loader,
        CachingEmbedder embedder,
        FilterMetrics metrics,
        CompletableFuture<Void> termination)
        implements RunningStage {

    @Override
    public StageName name() {
        return StageName.FILTER;
    }

    /**
     * Stops the stage, waiting for in-flight work to commit ({@link StreamsLifecycle#close}),
     * leaves the group so the partitions move to another instance at once, then frees the model.
     */
    @Override
    public void close() {
        try {
            StreamsLifecycle.close(streams);
        } finally {
            model.close();
            loader.close();
        }
    }
}
