package dev.rwml.worldmodel.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

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
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        try {
            final ObjectNode manifest = JSON.createObjectNode();
            manifest.put("format", FORMAT);
            manifest.put("version", version);
            manifest.put("hasOptimizerState", !optimizerState.isEmpty());
            entries.put("manifest.json", JSON.writeValueAsBytes(manifest));
            entries.put("config.json", JSON.writeValueAsBytes(config));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write checkpoint", e);
        }
        entries.put("tokenizer.json", tokenizerJson.getBytes(StandardCharsets.UTF_8));
        entries.put(
                "model.safetensors",
                SafeTensors.write(weights, Map.of("format", "pt", "version", "" + version)));
        if (!optimizerState.isEmpty()) {
            entries.put("optimizer.safetensors", SafeTensors.write(optimizerState, Map.of()));
        }
        return ZipEntries.write(entries);
    }

    /** Unpacks checkpoint bytes written by {@link #toBytes()}. */
    public static Checkpoint fromBytes(final byte[] bytes) {
        final Map<String, byte[]> entries = ZipEntries.read(bytes);
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
}
