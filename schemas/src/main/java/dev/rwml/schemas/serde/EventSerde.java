package dev.rwml.schemas.serde;

import dev.rwml.schemas.registry.SchemaRegistryClient;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka serde for one event class in the Confluent wire format, built ready to use (see {@link
 * EventSerdes}); its serializer and deserializer share one caching registry client.
 *
 * @param <T> the generated event class
 */
public final class EventSerde<T extends SpecificRecord> implements Serde<T> {
    private final EventSerializer<T> serializer;
    private final EventDeserializer<T> deserializer;
    private final SchemaRegistryClient registry;

    public EventSerde(
            final Class<T> type,
            final SchemaRegistryClient registry,
            final boolean isKey,
            final boolean autoRegister) {
        this.registry = registry;
        this.serializer = new EventSerializer<>(type, registry, isKey, autoRegister);
        this.deserializer = new EventDeserializer<>(type, registry);
    }

    @Override
    public Serializer<T> serializer() {
        return serializer;
    }

    @Override
    public Deserializer<T> deserializer() {
        return deserializer;
    }

    /** The registry client both halves use. */
    public SchemaRegistryClient registry() {
        return registry;
    }

    @Override
    public void close() {
        registry.close();
    }
}
