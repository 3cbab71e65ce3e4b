package dev.rwml.channel;

import ai.djl.ndarray.NDManager;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.artifact.Artifacts;
import dev.rwml.worldmodel.artifact.ChannelFixtures;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.LoraAdapter;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.hf.RandomCheckpoints;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.GrpoSample;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Publish-to-serve latency: from a version's transaction commit to the prediction stage's follower
 * having verified, loaded and installed it (the next batch samples with it), over {@value
 * #VERSIONS} versions of the trainer's real artifact published 300 ms apart. The follower and the
 * loader are the prediction stage's own, with its poll timeout. Two arms: the small model (weights,
 * tokenizer and optimizer state in every version) and a LoRA adapter (r = 16 on every projection,
 * with its AdamW moments) over a random SmolLM2-135M-shaped base, whose version 0 is loaded once
 * (timed apart). Prints; asserts nothing.
 */
class ModelSwapBenchmark {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final int VERSIONS = 20;

    @Test
    void publishToServeLatency() throws Exception {
        final byte[] artifact;
        try (WorldModel model =
                        WorldModel.create(ModelConfig.small(vocab()), Fixtures.TOKENIZER_JSON, 1);
                Trainer trainer = model.trainer(TrainConfig.grpo(1e-4), null, null)) {
            trainer.sftStep(Fixtures.examples(model, 4));
            artifact = model.checkpoint(1, trainer).toBytes();
        }
        final List<String> lines = new ArrayList<>();
        lines.add(measure("small model", artifact, artifact, Checkpoint.FORMAT));

        final Path dir = Files.createTempDirectory("smollm2-shape");
        try {
            RandomCheckpoints.smolLm2Shape(dir);
            final LoraConfig lora = LoraConfig.parse("r=16");
            final byte[] base = HfCheckpoint.fromDirectory(dir, 0).withLora(lora).toBytes();
            lines.add(
                    measure(
                            "LoRA " + lora + " over SmolLM2-135M shape",
                            base,
                            adapter(dir, lora, base),
                            LoraCheckpoint.FORMAT));
        } finally {
            RandomCheckpoints.delete(dir);
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    /** A trained adapter's artifact: one GRPO step, so the moments are real. */
    private static byte[] adapter(final Path dir, final LoraConfig lora, final byte[] base) {
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder frozen = HfDecoder.load(dir, manager)) {
            final LoraAdapter adapter = LoraAdapter.create(frozen.config(), lora, 1, manager);
            try (HfDecoder policy = frozen.withAdapter(adapter);
                    Trainer trainer = new Trainer(policy, null, TrainConfig.grpo(1e-4), 0)) {
                final int[] prompt = {1, 17, 42, 99, 250, 7, 3, 64};
                trainer.grpoStep(
                        List.of(
                                new GrpoSample(prompt, new int[] {4, 2}, new float[] {-9, -9}, 1),
                                new GrpoSample(prompt, new int[] {6}, new float[] {-9}, -1)),
                        GrpoConfig.grpo());
                return new LoraCheckpoint(
                                1,
                                0,
                                Artifacts.sha256Hex(base),
                                lora,
                                adapter.toTensors(),
                                trainer.optimizerState())
                        .toBytes();
            }
        }
    }

    /**
     * Publishes {@code first} as version 0 and {@code later} as versions 1..{@value #VERSIONS} to a
     * fresh run, and times each from its commit to its installation.
     */
    private static String measure(
            final String label, final byte[] first, final byte[] later, final String format)
            throws Exception {
        final String run = "swap-bench-" + System.nanoTime();
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(run));
        }
        final Map<Long, Long> installedAt = new ConcurrentHashMap<>();
        final AtomicReference<PredictionModel> serving = new AtomicReference<>();
        try (ModelChannel channel =
                        ModelChannel.of(
                                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()),
                                run);
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
                                Duration.ofMillis(500),
                                Optional.empty())) {
            producer.initTransactions();
            final ModelPublisher publisher = ModelPublisher.chunked(channel);
            final List<Double> millis = new ArrayList<>();
            double baseSeconds = 0;
            for (long v = 0; v <= VERSIONS; v++) {
                producer.beginTransaction();
                publisher.publish(
                        producer,
                        ChannelFixtures.manifest(run, v),
                        v == 0 && format.equals(LoraCheckpoint.FORMAT)
                                ? HfCheckpoint.FORMAT
                                : format,
                        v == 0 ? first : later,
                        ChunkObserver.NONE);
                producer.commitTransaction();
                final long committed = System.nanoTime();
                final long deadline = committed + Duration.ofSeconds(120).toNanos();
                while (!installedAt.containsKey(v) && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                // version 0 also waits for the follower's first assignment: reported apart
                if (v == 0) {
                    baseSeconds = (installedAt.getOrDefault(v, committed) - committed) / 1e9;
                } else if (installedAt.containsKey(v)) {
                    millis.add((installedAt.get(v) - committed) / 1e6);
                }
                Thread.sleep(300);
            }
            Collections.sort(millis);
            return String.format(
                    Locale.ROOT,
                    "ModelSwapBenchmark: %s: version 0 %d bytes installed %.1f s after commit;"
                            + " %d versions of %d bytes: commit to installed in the predictor"
                            + " median %.0f ms, max %.0f ms, min %.0f ms",
                    label,
                    first.length,
                    baseSeconds,
                    millis.size(),
                    later.length,
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
