package dev.rwml.trainer;

import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TrainingCounters;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.worldmodel.channel.VerifiedArtifact;
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
 * GRPO throughput of the trainer consuming from Kafka (decode, batch, step, publish versions in
 * transactions) against the same steps on the same groups in memory, as a ratio. Run with {@code
 * mvn -B -o -Pbench -pl trainer-consumer test}.
 */
class TrainerBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(TrainerBenchmark.class);

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final int GROUPS = 96;
    private static final int SAMPLES = 8;

    @Test
    void grpoThroughputFromKafkaVersusInMemory() throws Exception {
        final int vocab;
        try (WorldModelTokenizer t = WorldModelTokenizer.fromJson(TrainerFixture.tokenizerJson())) {
            vocab = t.vocabSize();
        }
        final String run = "trainer-bench-" + System.nanoTime();
        TrainerFixture.init(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl(), run, vocab);
        final List<RewardedGroup> groups = new ArrayList<>();
        for (int i = 0; i < GROUPS; i++) {
            groups.add(Groups.group("bench/" + i + "/0", 0, SAMPLES, vocab));
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
                                        "staleness.bound", "1000"));

        // In memory: the same steps on the same groups, no Kafka.
        final byte[] base = TrainerFixture.baseCheckpoint(vocab);
        final VerifiedArtifact v0 = VerifiedArtifact.verify(manifest(run, base), base);
        // The first pass starts the engine and warms the JIT; only the second is timed.
        inMemory(config, v0, groups);
        final long m0 = System.nanoTime();
        final long memTokens = inMemory(config, v0, groups);
        final double memSeconds = (System.nanoTime() - m0) / 1e9;

        try (KafkaProducer<String, byte[]> p =
                TrainerFixture.rewardsProducer(KAFKA.bootstrapServers())) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, groups);
        }
        final List<String> trained = new CopyOnWriteArrayList<>();
        final List<Long> tokens = new CopyOnWriteArrayList<>();
        final long k0 = System.nanoTime();
        try (TrainerLoop loop =
                new TrainerLoop(
                        config,
                        WorldModelPolicyTrainer.factory(),
                        new SimpleMeterRegistry(),
                        FaultHook.NONE,
                        (manifest, ids) -> {
                            trained.addAll(ids);
                            tokens.add(manifest.getCounters().getTokens());
                        })) {
            final CompletableFuture<Long> done = CompletableFuture.supplyAsync(loop::run);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofMinutes(5))
                    .until(() -> trained.size() >= GROUPS || done.isDone());
            loop.close();
            done.get();
        }
        final double kafkaSeconds = (System.nanoTime() - k0) / 1e9;
        final long kafkaTokens = tokens.stream().mapToLong(Long::longValue).sum();

        LOG.info(
                "TrainerBenchmark: {} groups x {} samples, tiny model | in memory: {} groups/s {}"
                        + " tokens/s | from Kafka (incl. start-up, {} versions published): {} groups/s"
                        + " {} tokens/s | Kafka/memory ratio {}",
                GROUPS,
                SAMPLES,
                String.format("%.1f", GROUPS / memSeconds),
                String.format("%.0f", memTokens / memSeconds),
                tokens.size(),
                String.format("%.1f", trained.size() / kafkaSeconds),
                String.format("%.0f", kafkaTokens / kafkaSeconds),
                String.format("%.2f", (trained.size() / kafkaSeconds) / (GROUPS / memSeconds)));
    }

    /** Trains every group in steps of the configured size and checkpoints; returns the tokens. */
    private static long inMemory(
            final TrainerConfig config, final VerifiedArtifact v0, final List<RewardedGroup> groups)
            throws Exception {
        long tokens = 0;
        try (PolicyTrainer policy = WorldModelPolicyTrainer.factory().create(config, v0, v0)) {
            for (int i = 0; i < groups.size(); i += config.groupsPerStep()) {
                tokens += policy.step(groups.subList(i, i + config.groupsPerStep())).tokens();
            }
            policy.checkpoint(1);
        }
        return tokens;
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
                                .setSha256(dev.rwml.worldmodel.channel.Artifacts.sha256Hex(bytes))
                                .setChunkCount(1)
                                .build())
                .build();
    }
}
