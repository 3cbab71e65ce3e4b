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
    private final SpecificData strictModel;
    private final Schema readerSchema;
    private final SchemaRegistryClient registry;
    private final Map<Integer, Readers<T>> readersById = new ConcurrentHashMap<>();

    /** Avro's fast reader, and the strict one that refuses a string that is not UTF-8. */
    private record Readers<T>(SpecificDatumReader<T> fast, SpecificDatumReader<T> strict) {}

    public EventDeserializer(final Class<T> type, final SchemaRegistryClient registry) {
        this.type = type;
        this.model = SpecificData.getForClass(type);
        // The generated classes' custom coders and Avro's fast reader decode strings leniently
        // (a bad byte sequence becomes U+FFFD) without asking the reader; a model without either
        // reads every string through StrictUtf8Reader, with the class's logical-type conversions.
        this.strictModel = new SpecificData(type.getClassLoader());
        model.getConversions().forEach(strictModel::addLogicalTypeConversion);
        strictModel.setCustomCoders(false);
        strictModel.setFastReaderEnabled(false);
        this.readerSchema = model.getSchema(type);
        this.registry = registry;
    }

    /**
     * Decodes with Avro's fast reader; only an event with a U+FFFD in a string (rare in real text)
     * is decoded again strictly, which tells a replacement Avro made from one that was written.
     */
    @Override
    public T deserialize(final String topic, final byte[] data) {
        if (data == null) {
            return null;
        }
        final int id = WireFormat.schemaId(topic, data);
        final Readers<T> readers = readerFor(topic, id);
        final T event = decode(topic, id, readers.fast(), data);
        return Replacements.present(event) ? decode(topic, id, readers.strict(), data) : event;
    }

    private T decode(
            final String topic,
            final int id,
            final SpecificDatumReader<T> reader,
            final byte[] data) {
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
        } catch (StrictUtf8Reader.InvalidUtf8Exception e) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.INVALID_UTF8,
                    topic,
                    "the Avro data of schema id " + id + " holds " + e.getMessage(),
                    e);
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

    private Readers<T> readerFor(final String topic, final int id) {
        final Readers<T> known = readersById.get(id);
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
        final Readers<T> readers =
                new Readers<>(
                        new SpecificDatumReader<>(writerSchema, readerSchema, model),
                        new StrictUtf8Reader<>(writerSchema, readerSchema, strictModel));
        readersById.put(id, readers);
        return readers;
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
