package dev.rwml.worldmodel.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.model.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads and writes the safetensors format (8-byte little-endian header length, a JSON header of
 * dtype, shape and data offsets per tensor plus {@code __metadata__}, then little-endian data), as
 * Python's {@code safetensors} reads it. Float32 tensors only.
 */
public final class SafeTensors {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String METADATA = "__metadata__";

    private SafeTensors() {}

    /** A read file: its tensors in file order and its string metadata. */
    public record Contents(Map<String, Tensor> tensors, Map<String, String> metadata) {}

    /** Serialises tensors (in map order) with metadata. */
    public static byte[] write(
            final Map<String, Tensor> tensors, final Map<String, String> metadata) {
        final ObjectNode header = JSON.createObjectNode();
        if (!metadata.isEmpty()) {
            final ObjectNode meta = header.putObject(METADATA);
            metadata.forEach(meta::put);
        }
        long offset = 0;
        for (final Map.Entry<String, Tensor> e : tensors.entrySet()) {
            final ObjectNode t = header.putObject(e.getKey());
            t.put("dtype", "F32");
            final var shape = t.putArray("shape");
            for (final long d : e.getValue().shape()) {
                shape.add(d);
            }
            final long end = offset + 4L * e.getValue().data().length;
            t.putArray("data_offsets").add(offset).add(end);
            offset = end;
        }
        byte[] headerBytes;
        try {
            headerBytes = JSON.writeValueAsBytes(header);
        } catch (final IOException e) {
            throw new IllegalStateException("cannot write safetensors header", e);
        }
        // pad the header with spaces so the data starts 8-byte aligned, as the reference writer
        // does
        final int padded = (headerBytes.length + 7) / 8 * 8;
        final ByteBuffer out =
                ByteBuffer.allocate(Math.toIntExact(8 + padded + offset))
                        .order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(padded);
        out.put(headerBytes);
        for (int i = headerBytes.length; i < padded; i++) {
            out.put((byte) ' ');
        }
        for (final Tensor t : tensors.values()) {
            out.asFloatBuffer().put(t.data());
            out.position(out.position() + 4 * t.data().length);
        }
        return out.array();
    }

    /**
     * Parses a safetensors file held in memory, as {@link MappedSafetensors} parses one on disk.
     * Artifacts hold float32 only, as this project writes them.
     */
    public static Contents read(final byte[] bytes) {
        final String source = "an artifact entry of " + bytes.length + " bytes";
        if (bytes.length < 8) {
            throw new IllegalArgumentException(
                    "not a safetensors file: " + bytes.length + " bytes");
        }
        final ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final int headerLength =
                (int) MappedSafetensors.headerLength(source, in.getLong(0), bytes.length);
        final Map<String, String> metadata = new LinkedHashMap<>();
        final Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (final MappedSafetensors.Slot slot :
                MappedSafetensors.parseHeader(
                        source,
                        Arrays.copyOfRange(bytes, 8, 8 + headerLength),
                        bytes.length,
                        metadata)) {
            if (slot.dtype() != MappedSafetensors.DType.F32) {
                throw new IllegalArgumentException(
                        "tensor "
                                + slot.name()
                                + " has dtype "
                                + slot.dtype()
                                + ": only F32 is supported, convert the file to float32");
            }
            final float[] data = new float[(int) ((slot.end() - slot.start()) / 4)];
            MappedSafetensors.convert(
                    slot.dtype(),
                    ByteBuffer.wrap(bytes, (int) slot.start(), (int) (slot.end() - slot.start()))
                            .slice()
                            .order(ByteOrder.LITTLE_ENDIAN),
                    FloatBuffer.wrap(data),
                    data.length);
            tensors.put(slot.name(), new Tensor(slot.shape(), data));
        }
        return new Contents(tensors, metadata);
    }
}
