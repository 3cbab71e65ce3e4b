package dev.rwml.schemas.topics;

import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.Serde;

/**
 * One topic as the catalog declares it: name, partitions, settings, and the serdes of its keys
 * (plain, registry-free) and values (an event class in the Confluent wire format).
 *
 * @param name the topic name
 * @param partitions the partition count used when the topic is created
 * @param partitionRule what the partition count of an existing topic must be
 * @param configs topic settings (cleanup.policy, retention.ms, max.message.bytes, ...)
 * @param keySerde the serde of the keys
 * @param valueType the event class of the values
 * @param <K> the key type
 * @param <V> the value type
 */
public record TopicSpec<K, V extends SpecificRecord>(
        String name,
        int partitions,
        PartitionRule partitionRule,
        Map<String, String> configs,
        Serde<K> keySerde,
        Class<V> valueType) {

    public TopicSpec {
        Objects.requireNonNull(name, "name");
        if (partitions < 1) {
            throw new IllegalArgumentException(
                    "topic " + name + " needs at least 1 partition, was " + partitions);
        }
        Objects.requireNonNull(partitionRule, "partitionRule");
        configs = Map.copyOf(configs);
        Objects.requireNonNull(keySerde, "keySerde");
        Objects.requireNonNull(valueType, "valueType");
    }

    /** A serde for this topic's values, on the registry that {@code registryConfig} names. */
    public EventSerde<V> valueSerde(final Map<String, ?> registryConfig) {
        return EventSerdes.forValue(valueType, registryConfig);
    }

    /** The topic to create, with {@code partitionCount} partitions. */
    public NewTopic newTopic(final int partitionCount, final Optional<Short> replicationFactor) {
        return new NewTopic(name, Optional.of(partitionCount), replicationFactor).configs(configs);
    }

    @Override
    public String toString() {
        return name;
    }
}
