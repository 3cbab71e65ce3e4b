package dev.rwml.worldmodel.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.Tensor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * One versioned world model: weights, config, tokenizer and optionally the optimiser state. As an
 * artifact it is a zip of {@code manifest.json}, {@code config.json}, {@code tokenizer.json},
 * {@code model.safetensors} and {@code optimizer.safetensors}, byte-for-byte reproducible, named by
 * its SHA-256.
 *
 * @param version model version (0 for a base model)
 * @param config model shape
 * @param tokenizerJson the Hugging Face tokenizer.json text
 * @param weights parameters by name
 * @param optimizerState AdamW moments and step; empty for an inference-only checkpoint
 */
public record Checkpoint(
        long version,
        ModelConfig config,
        String tokenizerJson,
        Map<String, Tensor> weights,
        Map<String, Tensor> optimizerState) {

    /** Format name written to the manifest. */
    public static final String FORMAT = "rwml-checkpoint-zip/1";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long FIXED_TIME = 0L;

    public Checkpoint {
        weights = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(weights));
        optimizerState =
                optimizerState == null
                        ? Map.of()
                        : java.util.Collections.unmodifiableMap(
                                new LinkedHashMap<>(optimizerState));
    }

    /** The artifact's bytes and their SHA-256 (lower-case hex). */
    public record Artifact(byte[] bytes, String sha256) {

        /** Checks the digest and unpacks the checkpoint. */
        public Checkpoint open() {
            final String actual = Checkpoint.sha256(bytes);
            if (!actual.equals(sha256)) {
                throw new IllegalArgumentException(
                        "checkpoint artifact SHA-256 mismatch: expected "
                                + sha256
                                + " but the bytes hash to "
                                + actual
                                + "; keep the current model and fetch the artifact again");
            }
            return fromBytes(bytes);
        }
    }

    /** Packs the checkpoint into its artifact. */
    public Artifact toArtifact() {
        final byte[] bytes = toBytes();
        return new Artifact(bytes, sha256(bytes));
    }

    /** The zip bytes (entries in a fixed order with fixed times, so equal models hash equal). */
    public byte[] toBytes() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            final ObjectNode manifest = JSON.createObjectNode();
            manifest.put("format", FORMAT);
            manifest.put("version", version);
            manifest.put("hasOptimizerState", !optimizerState.isEmpty());
            put(zip, "manifest.json", JSON.writeValueAsBytes(manifest));
            put(zip, "config.json", JSON.writeValueAsBytes(config));
            put(zip, "tokenizer.json", tokenizerJson.getBytes(StandardCharsets.UTF_8));
            put(
                    zip,
                    "model.safetensors",
                    SafeTensors.write(weights, Map.of("format", "pt", "version", "" + version)));
            if (!optimizerState.isEmpty()) {
                put(zip, "optimizer.safetensors", SafeTensors.write(optimizerState, Map.of()));
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write checkpoint", e);
        }
        return out.toByteArray();
    }

    /** Unpacks checkpoint bytes written by {@link #toBytes()}. */
    public static Checkpoint fromBytes(final byte[] bytes) {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(bytes))) {
            ZipEntry e;
            while ((e = zip.getNextEntry()) != null) {
                entries.put(e.getName(), zip.readAllBytes());
            }
        } catch (final IOException e) {
            throw new IllegalArgumentException("checkpoint is not a readable zip", e);
        }
        for (final String required :
                new String[] {
                    "manifest.json", "config.json", "tokenizer.json", "model.safetensors"
                }) {
            if (!entries.containsKey(required)) {
                throw new IllegalArgumentException(
                        "checkpoint lacks " + required + "; it holds " + entries.keySet());
            }
        }
        try {
            final var manifest = JSON.readTree(entries.get("manifest.json"));
            if (!FORMAT.equals(manifest.path("format").asText())) {
                throw new IllegalArgumentException(
                        "unsupported checkpoint format '"
                                + manifest.path("format").asText()
                                + "', expected "
                                + FORMAT);
            }
            final ModelConfig config =
                    JSON.readValue(entries.get("config.json"), ModelConfig.class);
            final byte[] optimizer = entries.get("optimizer.safetensors");
            return new Checkpoint(
                    manifest.path("version").asLong(),
                    config,
                    new String(entries.get("tokenizer.json"), StandardCharsets.UTF_8),
                    SafeTensors.read(entries.get("model.safetensors")).tensors(),
                    optimizer == null ? Map.of() : SafeTensors.read(optimizer).tensors());
        } catch (final IOException e) {
            throw new IllegalArgumentException("checkpoint JSON is unreadable", e);
        }
    }

    /** Lower-case hex SHA-256 of bytes. */
    public static String sha256(final byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM lacks SHA-256", e);
        }
    }

    private static void put(final ZipOutputStream zip, final String name, final byte[] data)
            throws IOException {
        final ZipEntry entry = new ZipEntry(name);
        entry.setTime(FIXED_TIME);
        zip.putNextEntry(entry);
        zip.write(data);
        zip.closeEntry();
    }
}
