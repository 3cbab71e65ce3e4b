package dev.rwml.schemas.serde;

import dev.rwml.schemas.registry.SchemaRegistryClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes an event class of {@code dev.rwml.events} in the Confluent wire format, registering (or
 * looking up) its schema under {@code <topic>-key} or {@code <topic>-value} once per topic.
 *
 * @param <T> the generated event class
 */
public final class EventSerializer<T extends SpecificRecord> implements Serializer<T> {
    static {
        TrustedEvents.ensureTrusted();
    }

    private final Class<T> type;
    private final Schema schema;
    private final SpecificDatumWriter<T> writer;
    private final SchemaRegistryClient registry;
    private final boolean isKey;
    private final boolean autoRegister;
    private final Map<String, Integer> idsByTopic = new ConcurrentHashMap<>();

    public EventSerializer(
            final Class<T> type,
            final SchemaRegistryClient registry,
            final boolean isKey,
            final boolean autoRegister) {
        this.type = type;
        final SpecificData model = SpecificData.getForClass(type);
        this.schema = model.getSchema(type);
        this.writer = new SpecificDatumWriter<>(schema, model);
        this.registry = registry;
        this.isKey = isKey;
        this.autoRegister = autoRegister;
    }

    @Override
    public byte[] serialize(final String topic, final T event) {
        if (event == null) {
            return null;
        }
        final int id = schemaId(topic);
        final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        out.write(WireFormat.MAGIC_BYTE);
        out.write(id >>> 24);
        out.write(id >>> 16);
        out.write(id >>> 8);
        out.write(id);
        try {
            final BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            writer.write(event, encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException(
                    "cannot encode a "
                            + type.getSimpleName()
                            + " for topic "
                            + topic
                            + ": "
                            + e.getMessage()
                            + "; a required field is probably null or of the wrong type",
                    e);
        }
        return out.toByteArray();
    }

    private int schemaId(final String topic) {
        final Integer known = idsByTopic.get(topic);
        if (known != null) {
            return known;
        }
        final String subject = SchemaRegistryClient.subjectFor(topic, isKey);
        final int id =
                autoRegister
                        ? registry.register(subject, schema)
                        : registry.lookupId(subject, schema);
        idsByTopic.put(topic, id);
        return id;
    }

    /** The event class this serializer writes. */
    public Class<T> type() {
        return type;
    }

    @Override
    public void close() {
        registry.close();
    }
}
