package dev.rwml.worldmodel.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.MappedByteBuffer;
import java.nio.ShortBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the tensors of one safetensors file or of a sharded set ({@code
 * model.safetensors.index.json}) by memory-mapping the ranges it is asked for, so files over 2 GiB
 * work and the Java heap never holds a file; F32, F16 and BF16 are read as float32. Its header
 * parsing and conversion are the format's one reading, which {@link SafeTensors} uses for the files
 * inside artifacts too.
 */
public final class MappedSafetensors implements AutoCloseable {

    /** The single-file name of a Hugging Face checkpoint's weights. */
    public static final String SINGLE_FILE = "model.safetensors";

    /** The index of a sharded checkpoint: tensor name to shard file. */
    public static final String INDEX_FILE = "model.safetensors.index.json";

    /** The largest header the format allows (100 MB), so a corrupt length fails fast. */
    private static final long MAX_HEADER = 100_000_000L;

    /** A mapped region is at most 1 GiB: one map call cannot exceed 2 GiB. */
    private static final long DEFAULT_CHUNK_BYTES = 1L << 30;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String METADATA = "__metadata__";

    /** The stored element types that can be read as float32. */
    public enum DType {
        F32(4),
        F16(2),
        BF16(2);

        private final int bytes;

        DType(final int bytes) {
            this.bytes = bytes;
        }

        /** Bytes per element on disk. */
        public int bytes() {
            return bytes;
        }
    }

    /**
     * Where one tensor is: its file, dtype, shape and byte range from the start of the file.
     *
     * @param name the tensor's name in the header
     * @param dtype the stored element type
     * @param shape dimensions, outermost first
     * @param file the file that holds it
     * @param start offset of its first byte in the file
     * @param end offset one past its last byte
     */
    public record Entry(String name, DType dtype, long[] shape, Path file, long start, long end) {

        /** Number of elements. */
        public long elements() {
            long n = 1;
            for (final long d : shape) {
                n *= d;
            }
            return n;
        }
    }

    private final Map<String, Entry> entries;
    private final Map<Path, FileChannel> channels;
    private final Map<String, String> metadata;
    private final long chunkBytes;

    private MappedSafetensors(
            final Map<String, Entry> entries,
            final Map<Path, FileChannel> channels,
            final Map<String, String> metadata,
            final long chunkBytes) {
        this.entries = Collections.unmodifiableMap(entries);
        this.channels = channels;
        this.metadata = Collections.unmodifiableMap(metadata);
        this.chunkBytes = chunkBytes;
    }

    /**
     * Opens a checkpoint's weights: a safetensors file, or a directory holding {@value #INDEX_FILE}
     * (sharded) or {@value #SINGLE_FILE}.
     */
    public static MappedSafetensors open(final Path fileOrDirectory) {
        return open(fileOrDirectory, DEFAULT_CHUNK_BYTES);
    }

    /** As {@link #open(Path)}, mapping regions of at most {@code chunkBytes} (tests use small). */
    static MappedSafetensors open(final Path fileOrDirectory, final long chunkBytes) {
        if (chunkBytes <= 0 || chunkBytes > Integer.MAX_VALUE || chunkBytes % 4 != 0) {
            throw new IllegalArgumentException(
                    "chunkBytes must be a positive multiple of 4 below 2 GiB, got " + chunkBytes);
        }
        if (!Files.isDirectory(fileOrDirectory)) {
            return openFiles(List.of(fileOrDirectory), null, chunkBytes);
        }
        final Path index = fileOrDirectory.resolve(INDEX_FILE);
        if (Files.isRegularFile(index)) {
            final Map<String, Path> weightMap = readIndex(index);
            final List<Path> shards = new ArrayList<>(new LinkedHashSet<>(weightMap.values()));
            return openFiles(shards, weightMap, chunkBytes);
        }
        final Path single = fileOrDirectory.resolve(SINGLE_FILE);
        if (Files.isRegularFile(single)) {
            return openFiles(List.of(single), null, chunkBytes);
        }
        throw new IllegalArgumentException(
                "no "
                        + SINGLE_FILE
                        + " or "
                        + INDEX_FILE
                        + " in "
                        + fileOrDirectory
                        + ": weights must be in safetensors format");
    }

    /** Every tensor, by name, in file (then shard) order. */
    public Map<String, Entry> entries() {
        return entries;
    }

    /** The {@code __metadata__} strings of the (first) file. */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** One tensor's entry, or an error naming the tensor. */
    public Entry entry(final String name) {
        final Entry e = entries.get(name);
        if (e == null) {
            throw new IllegalArgumentException("no tensor " + name + " in the checkpoint");
        }
        return e;
    }

    /** A whole tensor as float32 on the heap (for small tensors and tests). */
    public float[] readFloats(final String name) {
        final Entry e = entry(name);
        final float[] out = new float[Math.toIntExact(e.elements())];
        read(name, 0, FloatBuffer.wrap(out));
        return out;
    }

    /**
     * Converts {@code dst.remaining()} elements of a tensor, from element {@code first} on, to
     * float32 into {@code dst}, mapping only the bytes they occupy.
     */
    public void read(final String name, final long first, final FloatBuffer dst) {
        final Entry e = entry(name);
        final long count = dst.remaining();
        if (first < 0 || first + count > e.elements()) {
            throw new IndexOutOfBoundsException(
                    "elements "
                            + first
                            + ".."
                            + (first + count)
                            + " outside tensor "
                            + name
                            + " of "
                            + e.elements());
        }
        final int size = e.dtype().bytes();
        final long elementsPerChunk = chunkBytes / 4;
        final FileChannel channel = channels.get(e.file());
        long done = 0;
        while (done < count) {
            final long n = Math.min(elementsPerChunk, count - done);
            final MappedByteBuffer region;
            try {
                region =
                        channel.map(
                                FileChannel.MapMode.READ_ONLY,
                                e.start() + (first + done) * size,
                                n * size);
            } catch (final IOException ex) {
                throw new UncheckedIOException("cannot map " + name + " in " + e.file(), ex);
            }
            region.order(ByteOrder.LITTLE_ENDIAN);
            convert(e.dtype(), region, dst, (int) n);
            done += n;
        }
    }

    /**
     * Checks that the tensors are exactly {@code expected} (name to shape), ignoring the names in
     * {@code ignored}; the error names every missing, unexpected and mis-shaped tensor.
     */
    public void verify(final Map<String, long[]> expected, final Set<String> ignored) {
        final List<String> missing = new ArrayList<>();
        final List<String> unexpected = new ArrayList<>();
        final List<String> misShaped = new ArrayList<>();
        for (final Map.Entry<String, long[]> want : expected.entrySet()) {
            final Entry have = entries.get(want.getKey());
            if (have == null) {
                missing.add(want.getKey());
            } else if (!Arrays.equals(have.shape(), want.getValue())) {
                misShaped.add(
                        want.getKey()
                                + " is "
                                + Arrays.toString(have.shape())
                                + ", expected "
                                + Arrays.toString(want.getValue()));
            }
        }
        for (final String name : entries.keySet()) {
            if (!expected.containsKey(name) && !ignored.contains(name)) {
                unexpected.add(name);
            }
        }
        if (missing.isEmpty() && unexpected.isEmpty() && misShaped.isEmpty()) {
            return;
        }
        final StringBuilder msg = new StringBuilder("weights do not match config.json:");
        if (!missing.isEmpty()) {
            msg.append(" missing ").append(missing).append(';');
        }
        if (!unexpected.isEmpty()) {
            msg.append(" unexpected ").append(unexpected).append(';');
        }
        if (!misShaped.isEmpty()) {
            msg.append(" mis-shaped ").append(misShaped).append(';');
        }
        msg.setLength(msg.length() - 1);
        throw new IllegalArgumentException(msg.toString());
    }

    /** Closes the files; mapped regions already handed out stay valid until collected. */
    @Override
    public void close() {
        for (final FileChannel c : channels.values()) {
            try {
                c.close();
            } catch (final IOException e) {
                // closing a read-only channel loses nothing
            }
        }
    }

    /** Converts {@code n} little-endian elements of {@code dtype} at {@code src} to float32. */
    static void convert(
            final DType dtype, final ByteBuffer src, final FloatBuffer dst, final int n) {
        switch (dtype) {
            case F32 -> {
                final FloatBuffer f = src.asFloatBuffer();
                f.limit(n);
                dst.put(f);
            }
            case BF16 -> {
                final ShortBuffer s = src.asShortBuffer();
                for (int i = 0; i < n; i++) {
                    // a bfloat16 is the upper half of a float32
                    dst.put(Float.intBitsToFloat((s.get(i) & 0xffff) << 16));
                }
            }
            case F16 -> {
                final ShortBuffer s = src.asShortBuffer();
                for (int i = 0; i < n; i++) {
                    dst.put(halfToFloat(s.get(i)));
                }
            }
            default -> throw new IllegalStateException("unhandled dtype " + dtype);
        }
    }

    /** IEEE 754 binary16 to float32, subnormals, infinities and NaN included. */
    static float halfToFloat(final short half) {
        final int h = half & 0xffff;
        final int sign = (h & 0x8000) << 16;
        final int exponent = (h >>> 10) & 0x1f;
        final int mantissa = h & 0x3ff;
        if (exponent == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent != 0) {
            return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
        }
        // zero or subnormal: mantissa * 2^-24
        final float magnitude = mantissa * 0x1p-24f;
        return sign == 0 ? magnitude : -magnitude;
    }

    private static Map<String, Path> readIndex(final Path index) {
        final JsonNode root;
        try {
            root = JSON.readTree(index.toFile());
        } catch (final IOException e) {
            throw new IllegalArgumentException("cannot read " + index + ": " + e.getMessage(), e);
        }
        final JsonNode map = root == null ? null : root.get("weight_map");
        if (map == null || !map.isObject() || map.isEmpty()) {
            throw new IllegalArgumentException(index + " has no weight_map");
        }
        final Map<String, Path> weightMap = new LinkedHashMap<>();
        final Iterator<Map.Entry<String, JsonNode>> it = map.fields();
        while (it.hasNext()) {
            final Map.Entry<String, JsonNode> e = it.next();
            final String shardName = e.getValue().asText();
            if (shardName.isEmpty() || shardName.contains("/") || shardName.contains("\\")) {
                throw new IllegalArgumentException(
                        index + " names a shard outside its directory: " + shardName);
            }
            final Path shard = index.resolveSibling(shardName);
            weightMap.put(e.getKey(), shard);
        }
        return weightMap;
    }

    private static MappedSafetensors openFiles(
            final List<Path> files, final Map<String, Path> weightMap, final long chunkBytes) {
        final Map<Path, FileChannel> channels = new LinkedHashMap<>();
        final Map<String, Entry> entries = new LinkedHashMap<>();
        Map<String, String> metadata = null;
        try {
            for (final Path file : files) {
                final FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                channels.put(file, channel);
                final Map<String, String> meta = new TreeMap<>();
                for (final Entry e : readHeader(file, channel, meta)) {
                    if (entries.putIfAbsent(e.name(), e) != null) {
                        throw new IllegalArgumentException(
                                "tensor " + e.name() + " is in more than one shard");
                    }
                }
                if (metadata == null) {
                    metadata = meta;
                }
            }
            if (weightMap != null) {
                for (final Map.Entry<String, Path> w : weightMap.entrySet()) {
                    final Entry e = entries.get(w.getKey());
                    if (e == null || !e.file().equals(w.getValue())) {
                        throw new IllegalArgumentException(
                                INDEX_FILE
                                        + " puts "
                                        + w.getKey()
                                        + " in "
                                        + w.getValue().getFileName()
                                        + " but that shard does not hold it");
                    }
                }
            }
        } catch (final IOException e) {
            closeAll(channels);
            throw new UncheckedIOException("cannot read safetensors " + files, e);
        } catch (final RuntimeException e) {
            closeAll(channels);
            throw e;
        }
        return new MappedSafetensors(entries, channels, metadata, chunkBytes);
    }

    private static List<Entry> readHeader(
            final Path file, final FileChannel channel, final Map<String, String> metadata)
            throws IOException {
        final long fileSize = channel.size();
        if (fileSize < 8) {
            throw new IllegalArgumentException(
                    file + " is not a safetensors file: " + fileSize + " bytes");
        }
        final ByteBuffer lengthBytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        readFully(channel, lengthBytes, 0);
        final long headerLength = headerLength(file.toString(), lengthBytes.getLong(0), fileSize);
        final ByteBuffer headerBytes = ByteBuffer.allocate((int) headerLength);
        readFully(channel, headerBytes, 8);
        final List<Entry> out = new ArrayList<>();
        for (final Slot slot :
                parseHeader(
                        file.getFileName().toString(), headerBytes.array(), fileSize, metadata)) {
            out.add(
                    new Entry(
                            slot.name(),
                            slot.dtype(),
                            slot.shape(),
                            file,
                            slot.start(),
                            slot.end()));
        }
        return out;
    }

    /**
     * Where one tensor's bytes are in a safetensors file or byte array, as its header says.
     *
     * @param name the tensor's name
     * @param dtype the stored element type
     * @param shape dimensions, outermost first
     * @param start offset of its first byte from the start of the file
     * @param end offset one past its last byte
     */
    record Slot(String name, DType dtype, long[] shape, long start, long end) {}

    /**
     * The header's length from a file's first 8 bytes, checked against the file's size.
     *
     * @param source the file, for the error
     */
    static long headerLength(final String source, final long length, final long fileSize) {
        if (length <= 0 || length > MAX_HEADER || length > fileSize - 8) {
            throw new IllegalArgumentException(
                    source + " is not a safetensors file: header length " + length);
        }
        return length;
    }

    /**
     * The tensors a header declares, in header order, each checked against the file's size and its
     * dtype and shape; its {@code __metadata__} strings go to {@code metadata}.
     *
     * @param source the file, for errors
     * @param header the JSON header ({@link #headerLength} bytes after the first 8)
     */
    static List<Slot> parseHeader(
            final String source,
            final byte[] header,
            final long fileSize,
            final Map<String, String> metadata) {
        final JsonNode root;
        try {
            root = JSON.readTree(new String(header, StandardCharsets.UTF_8));
        } catch (final IOException e) {
            throw new IllegalArgumentException(
                    "the safetensors header of " + source + " is not valid JSON", e);
        }
        final long dataStart = 8L + header.length;
        final List<Slot> out = new ArrayList<>();
        final Iterator<Map.Entry<String, JsonNode>> it = root.fields();
        while (it.hasNext()) {
            final Map.Entry<String, JsonNode> field = it.next();
            if (field.getKey().equals(METADATA)) {
                field.getValue()
                        .fields()
                        .forEachRemaining(m -> metadata.put(m.getKey(), m.getValue().asText()));
                continue;
            }
            out.add(slot(source, field.getKey(), field.getValue(), dataStart, fileSize));
        }
        return out;
    }

    private static Slot slot(
            final String source,
            final String name,
            final JsonNode info,
            final long dataStart,
            final long fileSize) {
        final String dtypeName = info.path("dtype").asText();
        final DType dtype;
        try {
            dtype = DType.valueOf(dtypeName);
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "tensor "
                            + name
                            + " in "
                            + source
                            + " has dtype "
                            + dtypeName
                            + ": only F32, F16 and BF16 can be read (quantised checkpoints are"
                            + " not supported)");
        }
        final JsonNode shapeNode = info.path("shape");
        final long[] shape = new long[shapeNode.size()];
        long elements = 1;
        for (int i = 0; i < shape.length; i++) {
            shape[i] = shapeNode.get(i).asLong();
            elements *= shape[i];
        }
        final JsonNode offsets = info.path("data_offsets");
        final long begin = offsets.path(0).asLong(-1);
        final long end = offsets.path(1).asLong(-1);
        if (begin < 0 || end < begin || dataStart + end > fileSize) {
            throw new IllegalArgumentException(
                    "tensor "
                            + name
                            + " in "
                            + source
                            + " has data offsets "
                            + offsets
                            + " outside the file of "
                            + fileSize
                            + " bytes");
        }
        if (end - begin != elements * dtype.bytes()) {
            throw new IllegalArgumentException(
                    "tensor "
                            + name
                            + " in "
                            + source
                            + " has "
                            + (end - begin)
                            + " bytes but shape "
                            + Arrays.toString(shape)
                            + " of "
                            + dtype
                            + " needs "
                            + elements * dtype.bytes());
        }
        return new Slot(name, dtype, shape, dataStart + begin, dataStart + end);
    }

    private static void readFully(final FileChannel channel, final ByteBuffer dst, final long at)
            throws IOException {
        long position = at;
        while (dst.hasRemaining()) {
            final int n = channel.read(dst, position);
            if (n < 0) {
                throw new IOException("unexpected end of file at " + position);
            }
            position += n;
        }
    }

    private static void closeAll(final Map<Path, FileChannel> channels) {
        for (final FileChannel c : channels.values()) {
            try {
                c.close();
            } catch (final IOException ignored) {
                // already failing
            }
        }
    }
}
