package dev.rwml.schemas.serde;

import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.registry.SchemaRegistryClient;
import dev.rwml.schemas.registry.SchemaRegistryClients;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * Factories for the event serdes, configured from a Kafka-style map: {@code schema.registry.url}
 * (http(s) or {@code mock://<scope>}), {@code auto.register.schemas} (default true), {@code
 * basic.auth.user.info} and {@code schema.registry.ssl.*}.
 */
public final class EventSerdes {
    /** Whether serializers register their schema when the subject lacks it (default true). */
    public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";

    private EventSerdes() {}

    /** A serde for record values of {@code type}. */
    public static <T extends SpecificRecord> EventSerde<T> forValue(
            final Class<T> type, final Map<String, ?> config) {
        return create(type, config, false);
    }

    /** A serde for record keys of {@code type} (subject {@code <topic>-key}). */
    public static <T extends SpecificRecord> EventSerde<T> forKey(
            final Class<T> type, final Map<String, ?> config) {
        return create(type, config, true);
    }

    /** A value serde on an existing client, registering schemas automatically. */
    public static <T extends SpecificRecord> EventSerde<T> forValue(
            final Class<T> type, final SchemaRegistryClient registry) {
        return new EventSerde<>(type, registry, false, true);
    }

    /** The minimal configuration map for a registry URL. */
    public static Map<String, String> registryConfig(final String url) {
        return Map.of(RegistryConfig.URL, url);
    }

    private static <T extends SpecificRecord> EventSerde<T> create(
            final Class<T> type, final Map<String, ?> config, final boolean isKey) {
        final Object autoRegister = config.get(AUTO_REGISTER_SCHEMAS);
        final String flag = autoRegister == null ? "true" : autoRegister.toString().trim();
        if (!flag.equalsIgnoreCase("true") && !flag.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(
                    AUTO_REGISTER_SCHEMAS + " must be true or false, was '" + autoRegister + "'");
        }
        return new EventSerde<>(
                type, SchemaRegistryClients.create(config), isKey, Boolean.parseBoolean(flag));
    }
}
