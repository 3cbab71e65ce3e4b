package dev.rwml.schemas.serde;

import java.nio.ByteBuffer;

/**
 * The Confluent wire format: magic byte 0, the schema id as a 4-byte big-endian int, then the Avro
 * binary encoding of the value.
 */
public final class WireFormat {
    /** The first byte of every framed record. */
    public static final byte MAGIC_BYTE = 0;

    /** Bytes before the Avro payload: the magic byte and the schema id. */
    public static final int HEADER_SIZE = 5;

    private WireFormat() {}

    /** Writes the framing for {@code schemaId} into the first {@link #HEADER_SIZE} bytes. */
    public static void writeHeader(final byte[] target, final int schemaId) {
        ByteBuffer.wrap(target, 0, HEADER_SIZE).put(MAGIC_BYTE).putInt(schemaId);
    }

    /** Frames an Avro payload with the schema id. */
    public static byte[] frame(final int schemaId, final byte[] avroPayload) {
        final byte[] framed = new byte[HEADER_SIZE + avroPayload.length];
        writeHeader(framed, schemaId);
        System.arraycopy(avroPayload, 0, framed, HEADER_SIZE, avroPayload.length);
        return framed;
    }

    /**
     * The schema id of framed bytes.
     *
     * @throws EventDecodingException when the bytes are too short or do not start with the magic
     *     byte
     */
    public static int schemaId(final String topic, final byte[] data) {
        if (data.length < HEADER_SIZE) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.TRUNCATED,
                    topic,
                    data.length
                            + " byte(s), fewer than the "
                            + HEADER_SIZE
                            + "-byte Confluent framing (magic byte and schema id)");
        }
        if (data[0] != MAGIC_BYTE) {
            throw new EventDecodingException(
                    EventDecodingException.Reason.WRONG_MAGIC_BYTE,
                    topic,
                    "first byte is "
                            + data[0]
                            + ", not the Confluent magic byte 0; the producer did not use a schema"
                            + " registry serializer");
        }
        return ByteBuffer.wrap(data, 1, 4).getInt();
    }
}
