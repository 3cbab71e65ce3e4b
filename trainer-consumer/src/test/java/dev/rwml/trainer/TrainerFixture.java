package dev.rwml.trainer;

import ai.djl.ndarray.NDManager;
import dev.rwml.channel.ChunkObserver;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.TrainingCounters;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.Artifacts;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** A run on a cluster with a tiny real world model as version 0, as `rwml model init` makes it. */
final class TrainerFixture {

    static final int VOCAB_HINT = 300;

    private static String tokenizerJson;

    private TrainerFixture() {}

    /** The tokenizer of every test run, trained once per JVM. */
    static synchronized String tokenizerJson() {
        if (tokenizerJson == null) {
            tokenizerJson =
                    BpeTrainer.withDefaultSpecials(VOCAB_HINT)
                            .train(
                                    List.of(
                                            "You open the fridge 1. The fridge 1 is open.",
                                            "In it, you see a apple 2, and a mug 1.",
                                            "Nothing happens."));
        }
        return tokenizerJson;
    }

    /** Version 0's checkpoint: a freshly initialised tiny transformer. */
    static byte[] baseCheckpoint(final int vocabSize) {
        return baseCheckpoint(ModelConfig.tiny(vocabSize));
    }

    /** Version 0 of a model of {@code config} with the test tokenizer. */
    static byte[] baseCheckpoint(final ModelConfig config) {
        try (NDManager manager = DjlRuntime.newManager();
                TransformerLM lm = TransformerLM.initialise(config, 42, manager)) {
            return new Checkpoint(0, config, tokenizerJson(), lm.toTensors(), Map.of()).toBytes();
        }
    }

    /** Version 0 of a run as the trainer receives it, in the format its bytes name. */
    static VerifiedArtifact versionZero(final byte[] bytes) throws ArtifactRejectedException {
        return VerifiedArtifact.verify(
                ModelVersion.newBuilder()
                        .setRun("r")
                        .setVersion(0)
                        .setCreatedAt(Instant.now())
                        .setObjective("init")
                        .setCounters(TrainingCounters.newBuilder().build())
                        .setArtifact(
                                ArtifactRef.newBuilder()
                                        .setFormat(ModelFormat.of(bytes).wireName())
                                        .setSizeBytes(bytes.length)
                                        .setSha256(Artifacts.sha256Hex(bytes))
                                        .setChunkCount(1)
                                        .build())
                        .build(),
                bytes);
    }

    /** Creates the run's topics and publishes version 0, a tiny transformer. */
    static void init(
            final String bootstrap, final String registryUrl, final String run, final int vocab) {
        init(bootstrap, registryUrl, run, baseCheckpoint(vocab));
    }

    /** Creates the run's topics and publishes {@code checkpoint} as version 0. */
    static void init(
            final String bootstrap,
            final String registryUrl,
            final String run,
            final byte[] checkpoint) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(run));
        }
        try (ModelChannel channel = ModelChannel.of(Connection.of(bootstrap, registryUrl), run);
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(channel.producerConfig("rwml-init-" + run))) {
            producer.initTransactions();
            producer.beginTransaction();
            ModelPublisher.chunked(channel)
                    .publish(
                            producer,
                            ModelVersion.newBuilder()
                                    .setRun(run)
                                    .setVersion(0)
                                    .setParentVersion(null)
                                    .setCreatedAt(Instant.now())
                                    .setObjective("init")
                                    .setCounters(TrainingCounters.newBuilder().build()),
                            Checkpoint.FORMAT,
                            checkpoint,
                            ChunkObserver.NONE);
            producer.commitTransaction();
        }
    }

    /** A producer of rewarded groups onto the run's rewards topic. */
    static KafkaProducer<String, byte[]> rewardsProducer(final String bootstrap) {
        return TestClients.acksAllProducer(
                bootstrap, new StringSerializer(), new ByteArraySerializer());
    }

    /** Sends groups to the run's rewards topic and waits for the broker to take them. */
    static void send(
            final String registryUrl,
            final String run,
            final KafkaProducer<String, byte[]> producer,
            final List<RewardedGroup> groups) {
        final String topic = TopicCatalog.defaults().run(run).rewards().name();
        try (EventSerde<RewardedGroup> serde =
                TopicCatalog.defaults()
                        .run(run)
                        .rewards()
                        .valueSerde(EventSerdes.registryConfig(registryUrl))) {
            for (final RewardedGroup g : groups) {
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                g.getTransitionId(),
                                serde.serializer().serialize(topic, g)));
            }
        }
        producer.flush();
    }
}
