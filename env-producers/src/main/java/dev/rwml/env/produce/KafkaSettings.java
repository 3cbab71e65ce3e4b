package dev.rwml.env.produce;

import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.topics.CatalogSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where producers and the importer publish: the cluster, the schema registry and the topic
 * catalog's settings.
 *
 * @param bootstrapServers the Kafka {@code bootstrap.servers}
 * @param registryConfig the registry settings ({@code schema.registry.url} and, when needed,
 *     credentials and TLS with the Confluent serializer's key names)
 * @param producerOverrides extra Kafka producer settings; idempotence and {@code acks=all} cannot
 *     be turned off
 * @param catalog partitions and replication of {@code rwml.transitions} when it is created
 */
public record KafkaSettings(
        String bootstrapServers,
        Map<String, String> registryConfig,
        Map<String, Object> producerOverrides,
        CatalogSettings catalog) {

    public KafkaSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        if (bootstrapServers.isBlank()) {
            throw new IllegalArgumentException(
                    "bootstrap servers are empty; give host:port of a Kafka broker");
        }
        registryConfig = Map.copyOf(registryConfig);
        if (!registryConfig.containsKey(RegistryConfig.URL)) {
            throw new IllegalArgumentException(
                    RegistryConfig.URL
                            + " is missing; give the schema registry URL (e.g."
                            + " http://localhost:8080/apis/ccompat/v7 for Apicurio)");
        }
        producerOverrides = Map.copyOf(producerOverrides);
        Objects.requireNonNull(catalog, "catalog");
    }

    /** The cluster and registry with default catalog settings and no overrides. */
    public static KafkaSettings of(final String bootstrapServers, final String registryUrl) {
        return new KafkaSettings(
                bootstrapServers,
                Map.of(RegistryConfig.URL, registryUrl),
                Map.of(),
                CatalogSettings.defaults());
    }

    /** These settings with one more producer setting. */
    public KafkaSettings withProducerSetting(final String key, final Object value) {
        final Map<String, Object> more = new HashMap<>(producerOverrides);
        more.put(key, value);
        return new KafkaSettings(bootstrapServers, registryConfig, more, catalog);
    }
}
