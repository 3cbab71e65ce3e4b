package dev.rwml.schemas.serde;

import dev.rwml.schemas.registry.SchemaRegistryClient;
import dev.rwml.schemas.registry.UnknownSchemaException;
import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads an event class of {@code dev.rwml.events} from the Confluent wire format, resolving the
 * writer schema (fetched by id) against the class's schema so that evolved schemas read; every
 * malformed input becomes an {@link EventDecodingException}.
 *
 * <p>Registry failures other than an unknown id (unreachable, unauthorized) are not the data's
 * fault and propagate as {@link dev.rwml.schemas.registry.SchemaRegistryException}: a stage should
 * retry or stop on them, never dead-letter the record.
 *
 * @param <T> the generated event class
 */
public final class EventDeserializer<T extends SpecificRecord> implements Deserializer<T> {
    static {
        TrustedEvents.ensureTrusted();
    }

    private final Class<T> type;
    private final SpecificData model;
    private final Schema readerSchema;
    private final SchemaRegistryClient registry;
    private final Map<Integer, SpecificDatumReader<T>> readersById = new ConcurrentHashMap<>();

    public EventDeserializer(final Class<T> type, final SchemaRegistryClient registry) {
        this.type = type;
        this.model = SpecificData.getForClass(type);
        this.readerSchema = model.getSchema(type);
        this.registry = registry;
    }

    @Override
    public T deserialize(final String topic, final byte[] data) {
        if (data == null) {
            return null;
        }
        final int id = WireFormat.schemaId(topic, data);
        final SpecificDatumReader<T> reader = readerFor(topic, id);
        final BinaryDecoder decoder =
                DecoderFactory.get()
                        .binaryDecoder(
                                data,
                                WireFormat.HEADER_SIZE,
                                data.length - WireFormat.HEADER_SIZE,
                                null);
        final T event;
        try {
            event = reader.read(null, decoder);
        } catch (EOFException e) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.TRUNCATED,
                    topic,
                    "the Avro data of schema id " + id + " ends early (" + data.length + " bytes)",
                    e);
        } catch (IOException | RuntimeException e) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.UNDECODABLE_PAYLOAD,
                    topic,
                    "the bytes do not match schema id " + id + ": " + e,
                    e);
        }
        try {
            if (!decoder.isEnd()) {
                throw new EventDecodingException(
                        EventDecodingException.Reason.UNDECODABLE_PAYLOAD,
                        topic,
                        "bytes left over after a whole "
                                + type.getSimpleName()
                                + " of schema id "
                                + id
                                + "; the payload is not one record of that schema");
            }
        } catch (IOException e) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.UNDECODABLE_PAYLOAD, topic, e.toString(), e);
        }
        return event;
    }

    private SpecificDatumReader<T> readerFor(final String topic, final int id) {
        final SpecificDatumReader<T> known = readersById.get(id);
        if (known != null) {
            return known;
        }
        final Schema writerSchema;
        try {
            writerSchema = registry.schemaById(id);
        } catch (UnknownSchemaException e) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.UNKNOWN_SCHEMA_ID, topic, e.getMessage(), e);
        }
        final SchemaCompatibility.SchemaPairCompatibility compatibility =
                SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writerSchema);
        if (compatibility.getType() != SchemaCompatibilityType.COMPATIBLE) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.INCOMPATIBLE_SCHEMA,
                    topic,
                    "schema id "
                            + id
                            + " ("
                            + writerSchema.getFullName()
                            + ") cannot be read as "
                            + type.getName()
                            + ": "
                            + compatibility.getDescription());
        }
        final SpecificDatumReader<T> reader =
                new SpecificDatumReader<>(writerSchema, readerSchema, model);
        readersById.put(id, reader);
        return reader;
    }

    /** The event class this deserializer reads. */
    public Class<T> type() {
        return type;
    }

    @Override
    public void close() {
        registry.close();
    }
}
