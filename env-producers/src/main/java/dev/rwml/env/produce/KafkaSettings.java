package dev.rwml.env.produce;

import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.CatalogSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where producers and the importer publish: the connection (cluster and schema registry with their
 * security settings) and the topic catalog's settings.
 *
 * @param connection the Kafka cluster and registry, with the security settings every client gets
 * @param producerOverrides extra Kafka producer settings; idempotence and {@code acks=all} cannot
 *     be turned off
 * @param catalog partitions and replication of {@code rwml.transitions} when it is created
 */
public record KafkaSettings(
        Connection connection, Map<String, Object> producerOverrides, CatalogSettings catalog) {

    public KafkaSettings {
        Objects.requireNonNull(connection, "connection");
        producerOverrides = Map.copyOf(producerOverrides);
        Objects.requireNonNull(catalog, "catalog");
    }

    /** The connection with default catalog settings and no overrides. */
    public static KafkaSettings of(final Connection connection) {
        return new KafkaSettings(connection, Map.of(), CatalogSettings.defaults());
    }

    /** The Kafka {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return connection.bootstrapServers();
    }

    /** The settings of the transitions serde's registry client. */
    public Map<String, Object> registryConfig() {
        return connection.registryConfig();
    }

    /** These settings with one more producer setting. */
    public KafkaSettings withProducerSetting(final String key, final Object value) {
        final Map<String, Object> more = new HashMap<>(producerOverrides);
        more.put(key, value);
        return new KafkaSettings(connection, more, catalog);
    }
}
