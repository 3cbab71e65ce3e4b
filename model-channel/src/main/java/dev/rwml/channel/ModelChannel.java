package dev.rwml.channel;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One run's model version channel: the manifest topic {@code rwml.<run>.models} and the chunk topic
 * {@code rwml.<run>.model-chunks}, with the event serdes for both and the client settings that
 * reading and writing them need. Closing it closes the serdes' registry clients.
 */
public final class ModelChannel implements AutoCloseable {

    /** Default artifact bytes per chunk: fits the broker's and producer's default 1 MiB limits. */
    public static final int DEFAULT_CHUNK_BYTES = 900 * 1024;

    /** Largest chunk the publisher writes. */
    public static final int MAX_CHUNK_BYTES = 4 * 1024 * 1024;

    private final String run;
    private final Connection connection;
    private final String modelsTopic;
    private final String chunksTopic;
    private final TopicSpec<byte[], DeadLetter> deadLetters;
    private final EventSerde<ModelVersion> manifests;
    private final EventSerde<ModelChunk> chunks;

    private ModelChannel(final RunTopics topics, final Connection connection) {
        this.run = topics.run().value();
        this.connection = Objects.requireNonNull(connection, "connection");
        this.modelsTopic = topics.models().name();
        this.chunksTopic = topics.modelChunks().name();
        this.deadLetters = topics.deadLetters();
        this.manifests = topics.models().valueSerde(connection.registryConfig());
        this.chunks = topics.modelChunks().valueSerde(connection.registryConfig());
    }

    /**
     * The channel of {@code run}, its topics as the default catalog declares them; every client and
     * serde it makes gets the connection's security settings.
     */
    public static ModelChannel of(final Connection connection, final String run) {
        return new ModelChannel(TopicCatalog.defaults().run(run), connection);
    }

    /** The run. */
    public String run() {
        return run;
    }

    /** Where the channel's clients connect and how. */
    public Connection connection() {
        return connection;
    }

    /** Kafka bootstrap servers. */
    public String bootstrapServers() {
        return connection.bootstrapServers();
    }

    /** The registry settings the serdes were built from. */
    public Map<String, Object> serdeConfig() {
        return connection.registryConfig();
    }

    /** {@code rwml.<run>.models}. */
    public String modelsTopic() {
        return modelsTopic;
    }

    /** {@code rwml.<run>.model-chunks}. */
    public String chunksTopic() {
        return chunksTopic;
    }

    /** {@code rwml.<run>.dead-letters}, where a follower reports the versions it rejects. */
    public TopicSpec<byte[], DeadLetter> deadLetterTopic() {
        return deadLetters;
    }

    /** The key of chunk {@code index} of {@code version}: {@code <version>/<index>}. */
    public static String chunkKey(final long version, final int index) {
        return version + "/" + index;
    }

    /** A record key as the channel's topics store it: UTF-8. */
    public static byte[] keyBytes(final String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    byte[] serializeManifest(final ModelVersion manifest) {
        return manifests.serializer().serialize(modelsTopic, manifest);
    }

    byte[] serializeChunk(final ModelChunk chunk) {
        return chunks.serializer().serialize(chunksTopic, chunk);
    }

    ModelVersion deserializeManifest(final byte[] bytes) {
        return manifests.deserializer().deserialize(modelsTopic, bytes);
    }

    ModelChunk deserializeChunk(final byte[] bytes) {
        return chunks.deserializer().deserialize(chunksTopic, bytes);
    }

    /**
     * Settings of a transactional producer that can publish on this channel (byte keys and values;
     * the publisher serializes, and the caller may send other topics' records through it):
     * idempotent, acks=all, requests large enough for a chunk.
     */
    public Map<String, Object> producerConfig(final String transactionalId) {
        final Map<String, Object> p = plainProducerConfig(transactionalId);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.putAll(TopicCatalog.modelChunkProducerOverrides());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        return p;
    }

    /**
     * Settings of a plain producer of byte keys and values (a follower's dead letters): idempotent,
     * acks=all, no transaction.
     */
    public Map<String, Object> plainProducerConfig(final String clientId) {
        return connection.idempotentProducerConfig(clientId, Map.of());
    }

    /**
     * Settings of a reader of this channel (String keys, byte values): read_committed, no group,
     * manual positions.
     */
    public Map<String, Object> consumerConfig(final String clientId) {
        return connection.readCommittedConsumerConfig(
                clientId,
                Map.of(
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                        StringDeserializer.class,
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                        TopicCatalog.MODEL_CHUNK_MAX_MESSAGE_BYTES));
    }

    @Override
    public void close() {
        manifests.close();
        chunks.close();
    }
}
