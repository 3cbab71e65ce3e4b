package dev.rwml.prediction;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A transition waiting in the batch buffer store, kept as the original bytes with where it came
 * from, so it can be generated after a restart or dead-lettered exactly as it arrived.
 *
 * @param key the original key bytes (may be null)
 * @param value the original value bytes
 * @param timestamp the record timestamp, reused for the output
 * @param topic the source topic
 * @param partition the source partition
 * @param offset the source offset
 * @param headers the original headers
 */
public record BufferedRecord(
        byte[] key,
        byte[] value,
        long timestamp,
        String topic,
        int partition,
        long offset,
        List<Header> headers) {

    private static final int FORMAT = 1;

    /** Copies the header list. */
    public BufferedRecord {
        headers = List.copyOf(headers);
    }

    /** The headers as Kafka {@link Headers}. */
    public Headers kafkaHeaders() {
        return new RecordHeaders(headers.toArray(Header[]::new));
    }

    /** The store's value serde: a small versioned binary layout private to this stage. */
    public static Serde<BufferedRecord> serde() {
        return Serdes.serdeFrom(
                (Serializer<BufferedRecord>)
                        (topic, record) -> record == null ? null : write(record),
                (Deserializer<BufferedRecord>)
                        (topic, bytes) -> bytes == null ? null : read(bytes));
    }

    private static byte[] write(final BufferedRecord record) {
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            writeBytes(out, record.key);
            writeBytes(out, record.value);
            out.writeLong(record.timestamp);
            out.writeUTF(record.topic);
            out.writeInt(record.partition);
            out.writeLong(record.offset);
            out.writeInt(record.headers.size());
            for (final Header header : record.headers) {
                out.writeUTF(header.key());
                writeBytes(out, header.value());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static BufferedRecord read(final byte[] data) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            final int format = in.readByte();
            if (format != FORMAT) {
                throw new IllegalStateException(
                        "batch buffer entry has format "
                                + format
                                + ", this build reads "
                                + FORMAT
                                + "; drain the buffer with the older build before upgrading");
            }
            final byte[] key = readBytes(in);
            final byte[] value = readBytes(in);
            final long timestamp = in.readLong();
            final String topic = in.readUTF();
            final int partition = in.readInt();
            final long offset = in.readLong();
            final int headerCount = in.readInt();
            final List<Header> headers = new ArrayList<>(headerCount);
            for (int i = 0; i < headerCount; i++) {
                headers.add(new RecordHeader(in.readUTF(), readBytes(in)));
            }
            return new BufferedRecord(key, value, timestamp, topic, partition, offset, headers);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeBytes(final DataOutputStream out, final byte[] value)
            throws IOException {
        if (value == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(value.length);
            out.write(value);
        }
    }

    private static byte[] readBytes(final DataInputStream in) throws IOException {
        final int length = in.readInt();
        return length < 0 ? null : in.readNBytes(length);
    }
}
