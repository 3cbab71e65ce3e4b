package dev.rwml.worldmodel.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.checkpoint.MappedSafetensors.DType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Writes safetensors files for the tests, in F32, F16 or BF16, as the reference writer lays them.
 */
public final class SafetensorsFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One tensor to write. */
    public record Stored(DType dtype, long[] shape, float[] values) {}

    private SafetensorsFiles() {}

    /** Writes the tensors in map order. */
    public static void write(final Path file, final Map<String, Stored> tensors) {
        final ObjectNode header = JSON.createObjectNode();
        header.putObject("__metadata__").put("format", "pt");
        long offset = 0;
        for (final Map.Entry<String, Stored> e : tensors.entrySet()) {
            final ObjectNode t = header.putObject(e.getKey());
            t.put("dtype", e.getValue().dtype().name());
            final var shape = t.putArray("shape");
            for (final long d : e.getValue().shape()) {
                shape.add(d);
            }
            final long end =
                    offset + (long) e.getValue().dtype().bytes() * e.getValue().values().length;
            t.putArray("data_offsets").add(offset).add(end);
            offset = end;
        }
        try (FileChannel out =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            final byte[] json = JSON.writeValueAsBytes(header);
            final int padded = (json.length + 7) / 8 * 8;
            final ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
            head.putLong(padded).put(json);
            while (head.hasRemaining()) {
                head.put((byte) ' ');
            }
            head.flip();
            out.write(head);
            for (final Stored s : tensors.values()) {
                final ByteBuffer data =
                        ByteBuffer.allocate(s.dtype().bytes() * s.values().length)
                                .order(ByteOrder.LITTLE_ENDIAN);
                for (final float v : s.values()) {
                    switch (s.dtype()) {
                        case F32 -> data.putFloat(v);
                        case BF16 -> data.putShort((short) (Float.floatToRawIntBits(v) >>> 16));
                        case F16 -> data.putShort(toHalf(v));
                        default -> throw new IllegalStateException();
                    }
                }
                data.flip();
                out.write(data);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** float32 to binary16 for values that are exactly representable (the tests' choice). */
    public static short toHalf(final float v) {
        if (v == 0f) {
            return (short) (Float.floatToRawIntBits(v) >>> 16 & 0x8000);
        }
        final int bits = Float.floatToRawIntBits(v);
        final int sign = (bits >>> 16) & 0x8000;
        final int exponent = ((bits >>> 23) & 0xff) - 127 + 15;
        final int mantissa = (bits >>> 13) & 0x3ff;
        if (exponent <= 0 || exponent >= 0x1f) {
            throw new IllegalArgumentException(v + " is not a normal binary16 value");
        }
        return (short) (sign | (exponent << 10) | mantissa);
    }
}
