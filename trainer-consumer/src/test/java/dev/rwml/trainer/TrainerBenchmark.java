package dev.rwml.trainer;

import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TrainingCounters;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Steady-state GRPO throughput of the trainer consuming from Kafka (decode, batch, step, publish
 * versions in transactions) against the same steps on the same groups in memory, as a ratio: the
 * small model on groups shaped like the demo's (prompt of 300 tokens, G = 8 completions of 20 to
 * 40), 1,000 groups ({@code -Dbench.groups}) timed after 48 of warm-up ({@code -Dbench.warmup}) on
 * both sides. Run with {@code mvn -B -o -Pbench -pl trainer-consumer test -Dtest=TrainerBenchmark}.
 */
class TrainerBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(TrainerBenchmark.class);

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final int WARMUP = Integer.getInteger("bench.warmup", 48);
    private static final int MEASURED = Integer.getInteger("bench.groups", 1000);
    private static final int SAMPLES = 8;

    @Test
    void steadyStateFromKafkaVersusInMemory() throws Exception {
        final int vocab;
        try (WorldModelTokenizer t = WorldModelTokenizer.fromJson(TrainerFixture.tokenizerJson())) {
            vocab = t.vocabSize();
        }
        final String run = "trainer-bench-" + System.nanoTime();
        final byte[] base = TrainerFixture.baseCheckpoint(ModelConfig.small(vocab));
        TrainerFixture.init(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl(), run, base);
        final java.util.SplittableRandom random = new java.util.SplittableRandom(4);
        final List<RewardedGroup> groups = new ArrayList<>();
        for (int i = 0; i < WARMUP + MEASURED; i++) {
            groups.add(Groups.sized("bench/" + i + "/0", SAMPLES, vocab, 300, 20, 40, random));
        }
        final TrainerConfig config =
                TrainerConfig.defaults(run)
                        .with(
                                Map.of(
                                        "bootstrap.servers", KAFKA.bootstrapServers(),
                                        "schema.registry.url", KAFKA.schemaRegistryUrl(),
                                        "groups.per.step", "4",
                                        "publish.every.steps", "8",
                                        "batch.timeout", "PT0.2S",
                                        "staleness.bound", "100000"));

        // In memory: the same steps on the same groups, checkpointing as often as Kafka publishes.
        final VerifiedArtifact v0 = VerifiedArtifact.verify(manifest(run, base), base);
        final double memRate = inMemory(config, v0, groups);

        try (KafkaProducer<String, byte[]> p =
                TrainerFixture.rewardsProducer(KAFKA.bootstrapServers())) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, groups);
        }
        // (groups trained so far, nanoTime) at every published version
        final List<long[]> publishes = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicLong trained =
                new java.util.concurrent.atomic.AtomicLong();
        try (TrainerLoop loop =
                new TrainerLoop(
                        config,
                        WorldModelPolicyTrainer.factory(),
                        new SimpleMeterRegistry(),
                        FaultHook.NONE,
                        (manifest, ids) ->
                                publishes.add(
                                        new long[] {
                                            trained.addAndGet(ids.size()), System.nanoTime()
                                        }))) {
            final CompletableFuture<Long> done = CompletableFuture.supplyAsync(loop::run);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofMinutes(30))
                    .until(() -> trained.get() >= WARMUP + MEASURED - 32 || done.isDone());
            loop.close();
            done.get();
        }
        long[] from = null;
        for (final long[] p : publishes) {
            if (p[0] >= WARMUP) {
                from = p;
                break;
            }
        }
        final long[] to = publishes.get(publishes.size() - 1);
        final double kafkaRate = (to[0] - from[0]) / ((to[1] - from[1]) / 1e9);
        LOG.info(
                "TrainerBenchmark: small model, G={}, prompt 300, completions 20-40, {} groups"
                        + " after {} of warm-up | in memory {} groups/s | from Kafka {} groups/s"
                        + " ({} groups between versions {} and {}) | Kafka/memory ratio {}",
                SAMPLES,
                MEASURED,
                WARMUP,
                String.format("%.2f", memRate),
                String.format("%.2f", kafkaRate),
                to[0] - from[0],
                publishes.indexOf(from) + 1,
                publishes.size(),
                String.format("%.2f", kafkaRate / memRate));
    }

    /**
     * Trains every group in steps of the configured size, checkpointing every {@code
     * publish.every.steps} steps; returns groups per second after the warm-up.
     */
    private static double inMemory(
            final TrainerConfig config, final VerifiedArtifact v0, final List<RewardedGroup> groups)
            throws Exception {
        final int perStep = config.groupsPerStep();
        long t0 = 0;
        try (PolicyTrainer policy = WorldModelPolicyTrainer.factory().create(config, v0, v0)) {
            int steps = 0;
            for (int i = 0; i + perStep <= groups.size(); i += perStep) {
                if (i == WARMUP) {
                    t0 = System.nanoTime();
                }
                policy.step(groups.subList(i, i + perStep));
                if (++steps % config.publishEverySteps() == 0) {
                    policy.checkpoint(steps / config.publishEverySteps());
                }
            }
        }
        return MEASURED / ((System.nanoTime() - t0) / 1e9);
    }

    private static ModelVersion manifest(final String run, final byte[] bytes) {
        return ModelVersion.newBuilder()
                .setRun(run)
                .setVersion(0)
                .setCreatedAt(Instant.now())
                .setCounters(TrainingCounters.newBuilder().build())
                .setArtifact(
                        dev.rwml.events.ArtifactRef.newBuilder()
                                .setFormat("rwml-checkpoint-zip/1")
                                .setSizeBytes(bytes.length)
                                .setSha256(dev.rwml.worldmodel.artifact.Artifacts.sha256Hex(bytes))
                                .setChunkCount(1)
                                .build())
                .build();
    }
}
