package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.checkpoint.SafeTensors;
import dev.rwml.worldmodel.checkpoint.ZipEntries;
import dev.rwml.worldmodel.model.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A model version that is a LoRA adapter over a base version: a zip of {@code manifest.json}
 * (format, version, the base's version and the SHA-256 of the base's artifact), PEFT's {@code
 * adapter_config.json} and {@code adapter_model.safetensors}, and {@code optimizer.safetensors}
 * (the adapter's AdamW moments). A few MB where the full weights would be hundreds: the base
 * travels once, as version 0.
 *
 * @param version model version
 * @param baseVersion the version whose weights the adapter applies to (0)
 * @param baseSha256 SHA-256 of that version's artifact, checked before the adapter is applied
 * @param config rank, alpha, dropout and targets
 * @param weights the adapter's {@code lora_A} and {@code lora_B} tensors by PEFT name
 * @param optimizerState AdamW moments and step of the adapter's parameters
 */
public record LoraCheckpoint(
        long version,
        long baseVersion,
        String baseSha256,
        LoraConfig config,
        Map<String, Tensor> weights,
        Map<String, Tensor> optimizerState) {

    /** Format name written to the manifest and to the model version's artifact. */
    public static final String FORMAT = "rwml-hf-lora-zip/1";

    /** PEFT's adapter file names. */
    public static final String CONFIG_FILE = "adapter_config.json";

    /** PEFT's adapter weights file. */
    public static final String WEIGHTS_FILE = "adapter_model.safetensors";

    private static final String MANIFEST = "manifest.json";
    private static final String OPTIMIZER = "optimizer.safetensors";
    private static final ObjectMapper JSON = new ObjectMapper();

    public LoraCheckpoint {
        Objects.requireNonNull(baseSha256, "baseSha256");
        Objects.requireNonNull(config, "config");
        weights = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(weights));
        optimizerState = optimizerState == null ? Map.of() : Map.copyOf(optimizerState);
    }

    /** The zip bytes (entries in a fixed order with fixed times, so equal adapters hash equal). */
    public byte[] toBytes() {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        final ObjectNode manifest = JSON.createObjectNode();
        manifest.put("format", FORMAT);
        manifest.put("version", version);
        manifest.put("baseVersion", baseVersion);
        manifest.put("baseSha256", baseSha256);
        manifest.put("hasOptimizerState", !optimizerState.isEmpty());
        try {
            entries.put(MANIFEST, JSON.writeValueAsBytes(manifest));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write adapter", e);
        }
        entries.putAll(peftFiles());
        if (!optimizerState.isEmpty()) {
            entries.put(OPTIMIZER, SafeTensors.write(optimizerState, Map.of()));
        }
        return ZipEntries.write(entries);
    }

    /**
     * Writes the adapter as PEFT saves one ({@code adapter_config.json} and {@code
     * adapter_model.safetensors}) into {@code directory}, created if missing: what an inference
     * server's runtime LoRA loading reads. Each file is written beside its final name and moved
     * into place, so a server never reads half a file.
     */
    public void writePeftDirectory(final Path directory) {
        try {
            Files.createDirectories(directory);
            for (final Map.Entry<String, byte[]> file : peftFiles().entrySet()) {
                final Path target = directory.resolve(file.getKey());
                final Path partial = directory.resolve(file.getKey() + ".partial");
                Files.write(partial, file.getValue());
                Files.move(
                        partial,
                        target,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(
                    "cannot write the PEFT adapter of version " + version + " to " + directory, e);
        }
    }

    /** PEFT's two files of this adapter by name. */
    private Map<String, byte[]> peftFiles() {
        final Map<String, byte[]> files = new LinkedHashMap<>();
        try {
            files.put(
                    CONFIG_FILE,
                    JSON.writerWithDefaultPrettyPrinter()
                            .writeValueAsBytes(config.toAdapterConfig(baseName())));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write adapter", e);
        }
        files.put(WEIGHTS_FILE, SafeTensors.write(weights, Map.of("format", "pt")));
        return files;
    }

    /** Unpacks bytes written by {@link #toBytes()}. */
    public static LoraCheckpoint fromBytes(final byte[] bytes) {
        final Map<String, byte[]> entries = ZipEntries.read(bytes);
        for (final String required : new String[] {MANIFEST, CONFIG_FILE, WEIGHTS_FILE}) {
            if (!entries.containsKey(required)) {
                throw new IllegalArgumentException(
                        "LoRA adapter lacks " + required + "; it holds " + entries.keySet());
            }
        }
        try {
            final JsonNode manifest = JSON.readTree(entries.get(MANIFEST));
            if (!FORMAT.equals(manifest.path("format").asText())) {
                throw new IllegalArgumentException(
                        "unsupported adapter format '"
                                + manifest.path("format").asText()
                                + "', expected "
                                + FORMAT);
            }
            final byte[] optimizer = entries.get(OPTIMIZER);
            return new LoraCheckpoint(
                    manifest.path("version").asLong(),
                    manifest.path("baseVersion").asLong(),
                    manifest.path("baseSha256").asText(),
                    LoraConfig.fromAdapterConfig(JSON.readTree(entries.get(CONFIG_FILE))),
                    SafeTensors.read(entries.get(WEIGHTS_FILE)).tensors(),
                    optimizer == null ? Map.of() : SafeTensors.read(optimizer).tensors());
        } catch (final IOException e) {
            throw new IllegalArgumentException("adapter JSON is unreadable", e);
        }
    }

    /**
     * Refuses a base whose artifact's SHA-256 is not the one this adapter was trained on: the
     * adapter of another run, whose weights it would silently corrupt.
     *
     * @throws IllegalStateException naming both digests
     */
    public void requireBase(final String baseArtifactSha256) {
        if (!baseSha256.equalsIgnoreCase(baseArtifactSha256)) {
            throw new IllegalStateException(
                    "adapter version "
                            + version
                            + " was trained on a base with SHA-256 "
                            + baseSha256
                            + " but version "
                            + baseVersion
                            + " of this run is "
                            + baseArtifactSha256
                            + "; the adapter belongs to another run");
        }
    }

    /**
     * The full checkpoint of this version: {@code base}'s files with the adapter merged into its
     * weights ({@code W + alpha / r * B A}, float32), no optimizer state: what {@code rwml models
     * export --hf} writes, loadable without any adapter support.
     */
    public HfCheckpoint mergedInto(final HfCheckpoint base) {
        try (NDManager manager = DjlRuntime.newManager();
                HfModel model = HfModel.open(base, manager);
                HfDecoder view =
                        model.decoder()
                                .withAdapter(
                                        LoraAdapter.fromTensors(
                                                model.decoder().config(),
                                                config,
                                                weights,
                                                manager))) {
            return base.withWeights(version, view.toTensors(), Map.of());
        }
    }

    private String baseName() {
        return "rwml:version-" + baseVersion + "@sha256:" + baseSha256;
    }
}
