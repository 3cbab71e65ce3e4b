package dev.rwml.schemas.registry;

import org.apache.avro.Schema;

/**
 * The operations of the Confluent Schema Registry API the serdes and tools need; subjects follow
 * the TopicNameStrategy ({@code <topic>-key}, {@code <topic>-value}).
 */
public interface SchemaRegistryClient extends AutoCloseable {

    /**
     * Registers {@code schema} under {@code subject} (or finds it there) and returns its global id.
     *
     * @throws IncompatibleSchemaException when the subject's compatibility rule refuses it
     */
    int register(String subject, Schema schema);

    /**
     * Returns the id of {@code schema} already registered under {@code subject}.
     *
     * @throws UnknownSchemaException when it is not registered there
     */
    int lookupId(String subject, Schema schema);

    /**
     * Returns the schema with this global id.
     *
     * @throws UnknownSchemaException when no schema has it
     */
    Schema schemaById(int id);

    /** The subject's compatibility level, or the registry's global level when it has none. */
    CompatibilityLevel compatibility(String subject);

    /** Sets the subject's compatibility level ({@code PUT /config/{subject}}). */
    void setCompatibility(String subject, CompatibilityLevel level);

    /** Where the client talks to, for messages. */
    String describe();

    @Override
    default void close() {}

    /** The subject of a topic's keys or values under the TopicNameStrategy. */
    static String subjectFor(final String topic, final boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }
}
