package dev.rwml.ops.cli;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.Difficulty;
import dev.rwml.events.EnvRef;
import dev.rwml.events.GroupStats;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.RewardSpecRef;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Sampling;
import dev.rwml.events.TrainingCounters;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Topics, manifests and rewarded groups of a test run, and the command run on it in-process. */
final class RunFixtures {

    private RunFixtures() {}

    /** {@code rwml <command> --run <run>} on the stack's cluster, then {@code more} arguments. */
    static CliRunner.Result rwmlOnRun(
            final KafkaStack kafka, final String command, final String run, final String... more) {
        final List<String> args =
                new ArrayList<>(
                        List.of(
                                command,
                                "--run",
                                run,
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--schema-registry-url",
                                kafka.schemaRegistryUrl()));
        args.addAll(List.of(more));
        return CliRunner.rwml(args.toArray(String[]::new));
    }

    static void ensureRunTopics(final String bootstrap, final String run) {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            final TopicCatalog catalog = TopicCatalog.defaults();
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(run));
        }
    }

    static ModelVersion manifest(
            final String run,
            final long version,
            final Instant createdAt,
            final long groups,
            final double passRate) {
        return ModelVersion.newBuilder()
                .setRun(run)
                .setVersion(version)
                .setParentVersion(version == 0 ? null : version - 1)
                .setCreatedAt(createdAt)
                .setObjective(version == 0 ? "init" : "grpo")
                .setCounters(
                        TrainingCounters.newBuilder()
                                .setSteps(version == 0 ? 300 : 2)
                                .setGroups(groups)
                                .build())
                .setMetrics(
                        version == 0
                                ? Map.of("loss", 2.0)
                                : Map.of(
                                        "passRate",
                                        passRate,
                                        "loss",
                                        0.5 / version,
                                        "kl",
                                        1e-3 * version))
                .setArtifact(
                        ArtifactRef.newBuilder()
                                .setFormat("rwml-checkpoint-v1")
                                .setSizeBytes(1024)
                                .setSha256("0".repeat(64))
                                .setChunkCount(1)
                                .build())
                .build();
    }

    static RewardedGroup rewarded(
            final String run,
            final String transitionId,
            final long version,
            final double passRate) {
        return RewardedGroup.newBuilder()
                .setTransitionId(transitionId)
                .setRun(run)
                .setModelVersion(version)
                .setEnv(EnvRef.newBuilder().setName("alfworld").setSplit("train").build())
                .setNextKind(NextStateKind.TEXT)
                .setPromptTokenIds(List.of(1, 2, 3))
                .setObservedNextState("You open the fridge 1.")
                .setSamples(List.of())
                .setStats(
                        GroupStats.newBuilder()
                                .setMeanReward(passRate)
                                .setStdReward(0.5)
                                .setPassRate(passRate)
                                .build())
                .setDifficulty(Difficulty.INFORMATIVE)
                .setKept(true)
                .setRewardSpec(
                        RewardSpecRef.newBuilder()
                                .setMethod("embedding-cosine")
                                .setThreshold(0.8)
                                .build())
                .setSampling(
                        Sampling.newBuilder()
                                .setTemperature(1f)
                                .setTopP(1f)
                                .setMaxNewTokens(64)
                                .build())
                .setGeneratedAt(Instant.now())
                .setRewardedAt(Instant.now())
                .build();
    }

    /** Sends values of an event type to {@code topic}, keyed by the given strings, and flushes. */
    static <V extends SpecificRecord> void send(
            final String bootstrap,
            final String registryUrl,
            final Class<V> type,
            final String topic,
            final Map<String, V> records) {
        try (KafkaProducer<String, V> producer =
                new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                        new StringSerializer(),
                        EventSerdes.forValue(type, EventSerdes.registryConfig(registryUrl))
                                .serializer())) {
            records.forEach((key, value) -> producer.send(new ProducerRecord<>(topic, key, value)));
            producer.flush();
        }
    }
}
