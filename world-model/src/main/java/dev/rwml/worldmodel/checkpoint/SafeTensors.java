package dev.rwml.worldmodel.checkpoint;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.model.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** Parses a safetensors file. */
    public static Contents read(final byte[] bytes) {
        if (bytes.length < 8) {
            throw new IllegalArgumentException(
                    "not a safetensors file: " + bytes.length + " bytes");
        }
        final ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final long headerLength = in.getLong();
        if (headerLength <= 0 || headerLength > bytes.length - 8) {
            throw new IllegalArgumentException(
                    "not a safetensors file: header length " + headerLength);
        }
        final Map<String, Object> header;
        try {
            header =
                    JSON.readValue(
                            new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8),
                            new TypeReference<LinkedHashMap<String, Object>>() {});
        } catch (final IOException e) {
            throw new IllegalArgumentException("safetensors header is not valid JSON", e);
        }
        final int dataStart = 8 + (int) headerLength;
        final Map<String, Tensor> tensors = new LinkedHashMap<>();
        final Map<String, String> metadata = new LinkedHashMap<>();
        for (final Map.Entry<String, Object> e : header.entrySet()) {
            if (e.getKey().equals(METADATA)) {
                ((Map<?, ?>) e.getValue())
                        .forEach((k, v) -> metadata.put(k.toString(), v.toString()));
                continue;
            }
            final Map<?, ?> info = (Map<?, ?>) e.getValue();
            if (!"F32".equals(info.get("dtype"))) {
                throw new IllegalArgumentException(
                        "tensor "
                                + e.getKey()
                                + " has dtype "
                                + info.get("dtype")
                                + ": only F32 is supported, convert the file to float32");
            }
            final List<?> shapeList = (List<?>) info.get("shape");
            final long[] shape = new long[shapeList.size()];
            for (int i = 0; i < shape.length; i++) {
                shape[i] = ((Number) shapeList.get(i)).longValue();
            }
            final List<?> offsets = (List<?>) info.get("data_offsets");
            final int begin = ((Number) offsets.get(0)).intValue();
            final int end = ((Number) offsets.get(1)).intValue();
            final float[] data = new float[(end - begin) / 4];
            ByteBuffer.wrap(bytes, dataStart + begin, end - begin)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .asFloatBuffer()
                    .get(data);
            tensors.put(e.getKey(), new Tensor(shape, data));
        }
        return new Contents(tensors, metadata);
    }
}
