package dev.rwml.worldmodel.channel;

import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Publish-to-serve latency of the small model: from a version's transaction commit to the
 * prediction stage's follower having verified, loaded and installed it (the next batch samples with
 * it), over {@value #VERSIONS} versions of the trainer's real artifact (weights, tokenizer and
 * optimizer state) published 300 ms apart. The follower and the loader are the prediction stage's
 * own, with its poll timeout. Prints; asserts nothing.
 */
class ModelSwapBenchmark {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final int VERSIONS = 20;

    @Test
    void publishToServeLatency() throws Exception {
        final String run = "swap-bench-" + System.nanoTime();
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(run));
        }
        final byte[] artifact;
        try (WorldModel model =
                        WorldModel.create(ModelConfig.small(vocab()), Fixtures.TOKENIZER_JSON, 1);
                Trainer trainer = model.trainer(TrainConfig.grpo(1e-4), null, null)) {
            trainer.sftStep(Fixtures.examples(model, 4));
            artifact = model.checkpoint(1, trainer).toBytes();
        }
        final Map<Long, Long> installedAt = new ConcurrentHashMap<>();
        final AtomicReference<PredictionModel> serving = new AtomicReference<>();
        try (ModelChannel channel =
                        new ModelChannel(
                                catalog.run(run),
                                Map.of(
                                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                        KAFKA.bootstrapServers()),
                                EventSerdes.registryConfig(KAFKA.schemaRegistryUrl()));
                CheckpointModelLoader loader = CheckpointModelLoader.standard();
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(channel.producerConfig("swap-bench-" + run));
                ModelFollower follower =
                        ModelFollower.start(
                                channel,
                                Optional.empty(),
                                (a, versions) -> {
                                    final PredictionModel old =
                                            serving.getAndSet(loader.load(a, versions));
                                    installedAt.put(a.manifest().getVersion(), System.nanoTime());
                                    if (old != null) {
                                        old.close();
                                    }
                                },
                                Duration.ofMillis(500))) {
            producer.initTransactions();
            final ModelPublisher publisher = ModelPublisher.chunked(channel);
            final List<Double> millis = new ArrayList<>();
            for (long v = 0; v <= VERSIONS; v++) {
                producer.beginTransaction();
                publisher.publish(
                        producer,
                        ChannelFixtures.manifest(run, v),
                        Checkpoint.FORMAT,
                        artifact,
                        ChunkObserver.NONE);
                producer.commitTransaction();
                final long committed = System.nanoTime();
                final long deadline = committed + Duration.ofSeconds(30).toNanos();
                while (!installedAt.containsKey(v) && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                // version 0 also waits for the follower's first assignment: not counted
                if (v > 0 && installedAt.containsKey(v)) {
                    millis.add((installedAt.get(v) - committed) / 1e6);
                }
                Thread.sleep(300);
            }
            Collections.sort(millis);
            // benchmark output is the point of this class
            System.out.printf(
                    "ModelSwapBenchmark: small model, %d-byte artifact, %d versions: commit to"
                            + " installed in the predictor median %.0f ms, max %.0f ms, min %.0f"
                            + " ms%n",
                    artifact.length,
                    millis.size(),
                    millis.get(millis.size() / 2),
                    millis.get(millis.size() - 1),
                    millis.get(0));
        } finally {
            final PredictionModel last = serving.get();
            if (last != null) {
                last.close();
            }
        }
    }

    private static int vocab() {
        try (var t =
                dev.rwml.worldmodel.tokenizer.WorldModelTokenizer.fromJson(
                        Fixtures.TOKENIZER_JSON)) {
            return t.vocabSize();
        }
    }
}
