package dev.rwml.worldmodel.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.worldmodel.checkpoint.MappedSafetensors.DType;
import dev.rwml.worldmodel.checkpoint.SafetensorsFiles.Stored;
import dev.rwml.worldmodel.hf.HfConfig;
import dev.rwml.worldmodel.hf.HfFixtures;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedSafetensorsTest {

    private static final float[] VALUES = {1.5f, -0.25f, 0f, 1024f, -3.0e-3f, 65504f / 2, 7f, 0.1f};

    @TempDir Path dir;

    @Test
    void shouldFindEveryTensorTheQwen2FixtureConfigNames() {
        final Path checkpoint = HfFixtures.checkpoint("qwen2-tiny");
        final HfConfig config = HfConfig.load(checkpoint);
        try (MappedSafetensors st = MappedSafetensors.open(checkpoint)) {
            st.verify(config.tensorShapes(), Set.of());
            assertThat(st.entries()).hasSize(config.tensorShapes().size());
            assertThat(st.entry("model.embed_tokens.weight").dtype()).isEqualTo(DType.F32);
            assertThat(st.readFloats("model.norm.weight")).hasSize(64);
        }
    }

    @Test
    void shouldNameEveryMissingUnexpectedAndMisShapedTensor() {
        final Path checkpoint = HfFixtures.checkpoint("qwen2-tiny");
        final Map<String, long[]> expected =
                new LinkedHashMap<>(HfConfig.load(checkpoint).tensorShapes());
        expected.remove("model.layers.0.self_attn.q_proj.bias");
        expected.put("lm_head.weight", new long[] {384, 64});
        expected.put("model.norm.weight", new long[] {65});
        try (MappedSafetensors st = MappedSafetensors.open(checkpoint)) {
            assertThatThrownBy(() -> st.verify(expected, Set.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "weights do not match config.json: missing [lm_head.weight];"
                                    + " unexpected [model.layers.0.self_attn.q_proj.bias];"
                                    + " mis-shaped [model.norm.weight is [64], expected [65]]");
        }
    }

    @Test
    void shouldConvertF16AndBf16ToFloat32() {
        final Path file = dir.resolve("m.safetensors");
        final Map<String, Stored> tensors = new LinkedHashMap<>();
        tensors.put("a", new Stored(DType.F32, new long[] {2, 4}, VALUES));
        tensors.put("b", new Stored(DType.F16, new long[] {8}, VALUES));
        tensors.put("c", new Stored(DType.BF16, new long[] {4, 2}, VALUES));
        SafetensorsFiles.write(file, tensors);
        try (MappedSafetensors st = MappedSafetensors.open(file)) {
            assertThat(st.readFloats("a")).containsExactly(VALUES);
            final float[] half = st.readFloats("b");
            final float[] brain = st.readFloats("c");
            for (int i = 0; i < VALUES.length; i++) {
                // binary16 keeps 10 mantissa bits, bfloat16 7 (both truncated on write here)
                assertThat(half[i])
                        .isEqualTo(
                                Float.intBitsToFloat(
                                        Float.floatToRawIntBits(VALUES[i]) & 0xffffe000));
                assertThat(brain[i])
                        .isEqualTo(
                                Float.intBitsToFloat(
                                        Float.floatToRawIntBits(VALUES[i]) & 0xffff0000));
            }
            assertThat(half[0]).isEqualTo(1.5f);
            assertThat(st.metadata()).containsEntry("format", "pt");
        }
    }

    @Test
    void shouldDecodeHalfPrecisionSpecialValues() {
        assertThat(MappedSafetensors.halfToFloat((short) 0x0001)).isEqualTo(0x1p-24f);
        assertThat(MappedSafetensors.halfToFloat((short) 0x8000)).isEqualTo(-0f);
        assertThat(MappedSafetensors.halfToFloat((short) 0x7c00))
                .isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(MappedSafetensors.halfToFloat((short) 0x7bff)).isEqualTo(65504f);
        assertThat(MappedSafetensors.halfToFloat((short) 0x7e00)).isNaN();
    }

    @Test
    void shouldReadAcrossSeveralMappedRegions() {
        final Path file = dir.resolve("m.safetensors");
        final float[] many = new float[37];
        for (int i = 0; i < many.length; i++) {
            many[i] = i * 0.5f;
        }
        SafetensorsFiles.write(file, Map.of("x", new Stored(DType.BF16, new long[] {37}, many)));
        try (MappedSafetensors st = MappedSafetensors.open(file, 8)) {
            assertThat(st.readFloats("x")).containsExactly(many);
            final FloatBuffer part = FloatBuffer.allocate(11);
            st.read("x", 20, part);
            assertThat(part.array()[0]).isEqualTo(10f);
            assertThat(part.array()[10]).isEqualTo(15f);
            assertThatThrownBy(() -> st.read("x", 30, FloatBuffer.allocate(8)))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void shouldOpenAShardedCheckpointThroughItsIndex() throws IOException {
        SafetensorsFiles.write(
                dir.resolve("model-00001-of-00002.safetensors"),
                Map.of("a", new Stored(DType.F32, new long[] {2}, new float[] {1, 2})));
        SafetensorsFiles.write(
                dir.resolve("model-00002-of-00002.safetensors"),
                Map.of("b", new Stored(DType.BF16, new long[] {1}, new float[] {3})));
        Files.writeString(
                dir.resolve(MappedSafetensors.INDEX_FILE),
                """
                {"metadata": {"total_size": 10}, "weight_map": {
                  "a": "model-00001-of-00002.safetensors",
                  "b": "model-00002-of-00002.safetensors"}}
                """);
        try (MappedSafetensors st = MappedSafetensors.open(dir)) {
            assertThat(st.entries().keySet()).containsExactly("a", "b");
            assertThat(st.readFloats("a")).containsExactly(1f, 2f);
            assertThat(st.readFloats("b")).containsExactly(3f);
        }
    }

    @Test
    void shouldRefuseAnIndexThatPutsATensorInTheWrongShard() throws IOException {
        SafetensorsFiles.write(
                dir.resolve("s1.safetensors"),
                Map.of("a", new Stored(DType.F32, new long[] {1}, new float[] {1})));
        Files.writeString(
                dir.resolve(MappedSafetensors.INDEX_FILE),
                "{\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\"}}");
        assertThatThrownBy(() -> MappedSafetensors.open(dir))
                .hasMessageContaining("puts b in s1.safetensors but that shard does not hold it");
    }

    @Test
    void shouldRefuseQuantisedTensorsAndTruncatedData() throws IOException {
        final Path file = dir.resolve("q.safetensors");
        writeRaw(file, "{\"w\":{\"dtype\":\"I8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2);
        assertThatThrownBy(() -> MappedSafetensors.open(file))
                .hasMessageContaining("tensor w in q.safetensors has dtype I8");
        writeRaw(file, "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8);
        assertThatThrownBy(() -> MappedSafetensors.open(file))
                .hasMessageContaining("has 8 bytes but shape [3] of F32 needs 12");
    }

    /**
     * A sparse file over 2 GiB: a 2 GiB tensor of zeros, then a small one whose bytes lie past
     * offset 2^31, which a reader with int offsets or one mapped region cannot reach.
     */
    @Test
    void shouldReadTensorsPastTwoGibibytes() throws IOException {
        final long bigElements = (1L << 29) + 2;
        final String header =
                "{\"big\":{\"dtype\":\"F32\",\"shape\":["
                        + bigElements
                        + "],\"data_offsets\":[0,"
                        + bigElements * 4
                        + "]},\"small\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":["
                        + bigElements * 4
                        + ","
                        + (bigElements * 4 + 8)
                        + "]}}";
        final Path file = dir.resolve("big.safetensors");
        final long dataStart = writeRaw(file, header, 0);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(dataStart + bigElements * 4 + 8);
            raf.seek(dataStart + bigElements * 4);
            final ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            tail.putFloat(42f).putFloat(-7f);
            raf.write(tail.array());
        }
        assertThat(Files.size(file)).isGreaterThan(1L << 31);
        try (MappedSafetensors st = MappedSafetensors.open(file)) {
            assertThat(st.readFloats("small")).containsExactly(42f, -7f);
            final FloatBuffer edge = FloatBuffer.allocate(4);
            st.read("big", bigElements - 4, edge);
            assertThat(edge.array()).containsExactly(0f, 0f, 0f, 0f);
        }
    }

    /** Writes a header and {@code dataBytes} zero bytes; returns where the data starts. */
    private static long writeRaw(final Path file, final String header, final int dataBytes)
            throws IOException {
        final byte[] json = header.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer out =
                ByteBuffer.allocate(8 + json.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(json.length).put(json);
        Files.write(file, out.array());
        return 8 + json.length;
    }
}
