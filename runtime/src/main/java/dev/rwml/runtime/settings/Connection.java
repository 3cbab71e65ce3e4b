package dev.rwml.runtime.settings;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Where a process's clients connect and how: the Kafka bootstrap servers with their security
 * settings ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) and the schema registry with
 * its auth and TLS settings ({@code schema.registry.*}, {@code basic.auth.*}). Every Kafka client
 * and registry client a command creates starts from {@link #kafkaConfig} or {@link
 * #registryConfig}, so no client misses a security setting.
 *
 * @param kafka bootstrap servers and the security settings of every Kafka client
 * @param registry the registry URL and its auth / TLS settings
 */
public record Connection(Map<String, String> kafka, Map<String, String> registry) {

    /** Key of the Kafka bootstrap servers. */
    public static final String BOOTSTRAP_SERVERS = CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG;

    /** Key of the Confluent-compatible registry URL (or {@code mock://scope}). */
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";

    /** Prefixes of keys that every Kafka client gets. */
    public static final List<String> KAFKA_PREFIXES =
            List.of("security.protocol", "sasl.", "ssl.", "client.dns.lookup");

    /** Prefixes of keys that every registry client gets. */
    public static final List<String> REGISTRY_PREFIXES = List.of("schema.registry.", "basic.auth.");

    /** Freezes the maps; both addresses are required. */
    public Connection {
        kafka = Map.copyOf(new TreeMap<>(kafka));
        registry = Map.copyOf(new TreeMap<>(registry));
        if (kafka.getOrDefault(BOOTSTRAP_SERVERS, "").isBlank()) {
            throw new IllegalArgumentException(
                    BOOTSTRAP_SERVERS + " is required: give host:port of a Kafka broker");
        }
        if (registry.getOrDefault(SCHEMA_REGISTRY_URL, "").isBlank()) {
            throw new IllegalArgumentException(
                    SCHEMA_REGISTRY_URL
                            + " is required: give the schema registry URL (e.g."
                            + " http://localhost:8080/apis/ccompat/v7 for Apicurio)");
        }
    }

    /** A plain connection: no security settings. */
    public static Connection of(final String bootstrapServers, final String schemaRegistryUrl) {
        return new Connection(
                Map.of(BOOTSTRAP_SERVERS, bootstrapServers),
                Map.of(SCHEMA_REGISTRY_URL, schemaRegistryUrl));
    }

    /** The connection keys among {@code settings}; the others are ignored. */
    public static Connection from(final Map<String, String> settings) {
        final Map<String, String> kafka = new HashMap<>();
        final Map<String, String> registry = new HashMap<>();
        settings.forEach(
                (key, value) -> {
                    if (value == null) {
                        return;
                    }
                    if (key.equals(BOOTSTRAP_SERVERS) || hasPrefix(key, KAFKA_PREFIXES)) {
                        kafka.put(key, value);
                    } else if (hasPrefix(key, REGISTRY_PREFIXES)) {
                        registry.put(key, value);
                    }
                });
        return new Connection(kafka, registry);
    }

    /** Whether {@code key} is a connection setting. */
    public static boolean isConnectionKey(final String key) {
        return key.equals(BOOTSTRAP_SERVERS)
                || hasPrefix(key, KAFKA_PREFIXES)
                || hasPrefix(key, REGISTRY_PREFIXES);
    }

    /** The Kafka bootstrap servers. */
    public String bootstrapServers() {
        return kafka.get(BOOTSTRAP_SERVERS);
    }

    /** The registry URL. */
    public String schemaRegistryUrl() {
        return registry.get(SCHEMA_REGISTRY_URL);
    }

    /**
     * The settings of a Kafka client (admin, producer, consumer or streams): the connection's, then
     * {@code extra} on top.
     */
    public Map<String, Object> kafkaConfig(final Map<String, ?> extra) {
        final Map<String, Object> config = new HashMap<>(kafka);
        config.putAll(extra);
        return config;
    }

    /** {@link #kafkaConfig} as {@link Properties}, for Kafka Streams. */
    public Properties kafkaProperties(final Map<String, ?> extra) {
        final Properties properties = new Properties();
        properties.putAll(kafkaConfig(extra));
        return properties;
    }

    /** The settings of a registry client or an event serde. */
    public Map<String, Object> registryConfig() {
        return new HashMap<>(registry);
    }

    /**
     * The settings of a consumer that sees committed records only and never commits by itself
     * (read_committed, no auto-commit; positions are the owner's to commit or seek), of byte keys
     * and values unless {@code extra}, applied on top, says otherwise.
     */
    public Map<String, Object> readCommittedConsumerConfig(
            final String clientId, final Map<String, ?> extra) {
        final Map<String, Object> config = kafkaConfig(Map.of());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.putAll(extra);
        return config;
    }

    /** A consumer of {@link #readCommittedConsumerConfig} without extra settings. */
    public KafkaConsumer<byte[], byte[]> readCommittedConsumer(final String clientId) {
        return new KafkaConsumer<>(readCommittedConsumerConfig(clientId, Map.of()));
    }

    /**
     * The settings of a producer whose retries never duplicate or reorder a record: {@code extra}
     * (over byte serializers and the client id), then idempotence and {@code acks=all}, which it
     * cannot override.
     */
    public Map<String, Object> idempotentProducerConfig(
            final String clientId, final Map<String, ?> extra) {
        final Map<String, Object> config = kafkaConfig(Map.of());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.putAll(extra);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return config;
    }

    /** An admin client on this connection. */
    public Admin admin() {
        return Admin.create(kafkaConfig(Map.of()));
    }

    /** The settings as one map, as a config file would hold them. */
    public Map<String, String> asMap() {
        final Map<String, String> all = new TreeMap<>(kafka);
        all.putAll(registry);
        return all;
    }

    private static boolean hasPrefix(final String key, final List<String> prefixes) {
        return prefixes.stream().anyMatch(key::startsWith);
    }

    @Override
    public String toString() {
        // Secrets (passwords, JAAS configs, user info) never reach a log line.
        return "Connection[" + bootstrapServers() + ", " + schemaRegistryUrl() + "]";
    }
}
