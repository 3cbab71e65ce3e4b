package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.checkpoint.MappedSafetensors;
import dev.rwml.worldmodel.checkpoint.SafeTensors;
import dev.rwml.worldmodel.checkpoint.ZipEntries;
import dev.rwml.worldmodel.model.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A Hugging Face checkpoint as a model version's artifact: a zip of {@code manifest.json} (format
 * and version), the checkpoint's own files unchanged ({@code config.json}, its safetensors and
 * index, {@code tokenizer.json}, {@code tokenizer_config.json}, {@code generation_config.json})
 * and, for trained versions, {@code optimizer.safetensors}. Unzipped without the manifest and the
 * optimizer state it is a checkpoint directory Hugging Face loads.
 *
 * <p>A version 0 initialised for LoRA training names the adapter settings in its manifest; the
 * trained versions are then {@link LoraCheckpoint}s over it.
 *
 * @param version model version (0 for the pretrained checkpoint)
 * @param files the checkpoint's files by name
 * @param optimizerState AdamW moments and step; empty for version 0
 * @param lora the adapters the trainer trains on this checkpoint, or empty for full fine-tuning
 */
public record HfCheckpoint(
        long version,
        Map<String, byte[]> files,
        Map<String, Tensor> optimizerState,
        Optional<LoraConfig> lora) {

    /** Format name written to the manifest and to the model version's artifact. */
    public static final String FORMAT = "rwml-hf-checkpoint-zip/1";

    /** Files a checkpoint must hold besides its weights. */
    public static final List<String> REQUIRED = List.of(HfConfig.FILE, HfTokenizer.FILE);

    /** Files besides the weights that travel with the checkpoint when present. */
    public static final List<String> OPTIONAL =
            List.of(
                    ChatTemplate.FILE,
                    "generation_config.json",
                    "special_tokens_map.json",
                    MappedSafetensors.INDEX_FILE);

    private static final String MANIFEST = "manifest.json";
    private static final String OPTIMIZER = "optimizer.safetensors";
    private static final ObjectMapper JSON = new ObjectMapper();

    public HfCheckpoint {
        files = Collections.unmodifiableMap(new TreeMap<>(files));
        optimizerState = optimizerState == null ? Map.of() : Map.copyOf(optimizerState);
        lora = lora == null ? Optional.empty() : lora;
        for (final String name : REQUIRED) {
            if (!files.containsKey(name)) {
                throw new IllegalArgumentException(
                        "a Hugging Face checkpoint needs " + name + "; it holds " + files.keySet());
            }
        }
    }

    /**
     * Reads a checkpoint directory after checking that its config, weights (names and shapes) and
     * tokenizer load.
     */
    public static HfCheckpoint fromDirectory(final Path dir, final long version) {
        final HfConfig config = HfDecoder.verify(dir);
        try (HfTokenizer tokenizer = HfTokenizer.load(dir, config)) {
            tokenizer.endIds(); // loading is the check
        }
        final Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (final Path p : (Iterable<Path>) list.sorted()::iterator) {
                final String name = p.getFileName().toString();
                if (Files.isRegularFile(p)
                        && (REQUIRED.contains(name)
                                || OPTIONAL.contains(name)
                                || name.endsWith(".safetensors"))) {
                    files.put(name, Files.readAllBytes(p));
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read checkpoint directory " + dir, e);
        }
        return new HfCheckpoint(version, files, Map.of(), Optional.empty());
    }

    /** This checkpoint with LoRA as its training mode (for a version 0). */
    public HfCheckpoint withLora(final LoraConfig config) {
        return new HfCheckpoint(version, files, optimizerState, Optional.of(config));
    }

    /**
     * The next version of this checkpoint: the same config and tokenizer files with trained float32
     * weights in one {@code model.safetensors} (shards and their index dropped).
     */
    public HfCheckpoint withWeights(
            final long newVersion,
            final Map<String, Tensor> weights,
            final Map<String, Tensor> optimizer) {
        final Map<String, byte[]> next = new TreeMap<>();
        for (final Map.Entry<String, byte[]> e : files.entrySet()) {
            final String name = e.getKey();
            if (!name.endsWith(".safetensors") && !name.equals(MappedSafetensors.INDEX_FILE)) {
                next.put(name, e.getValue());
            }
        }
        next.put(
                MappedSafetensors.SINGLE_FILE,
                SafeTensors.write(weights, Map.of("format", "pt", "version", "" + newVersion)));
        return new HfCheckpoint(newVersion, next, optimizer, Optional.empty());
    }

    /** The zip bytes (entries in name order with fixed times, so equal checkpoints hash equal). */
    public byte[] toBytes() {
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        final ObjectNode manifest = JSON.createObjectNode();
        manifest.put("format", FORMAT);
        manifest.put("version", version);
        manifest.put("hasOptimizerState", !optimizerState.isEmpty());
        lora.ifPresent(l -> manifest.put("lora", l.toString()));
        try {
            entries.put(MANIFEST, JSON.writeValueAsBytes(manifest));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write checkpoint", e);
        }
        entries.putAll(files);
        if (!optimizerState.isEmpty()) {
            entries.put(OPTIMIZER, SafeTensors.write(optimizerState, Map.of()));
        }
        return ZipEntries.write(entries);
    }

    /** Unpacks bytes written by {@link #toBytes()}. */
    public static HfCheckpoint fromBytes(final byte[] bytes) {
        final Map<String, byte[]> entries = new TreeMap<>(ZipEntries.read(bytes));
        final byte[] manifestBytes = entries.remove(MANIFEST);
        if (manifestBytes == null) {
            throw new IllegalArgumentException(
                    "checkpoint lacks " + MANIFEST + "; it holds " + entries.keySet());
        }
        final JsonNode manifest;
        try {
            manifest = JSON.readTree(manifestBytes);
        } catch (final IOException e) {
            throw new IllegalArgumentException("checkpoint manifest is unreadable", e);
        }
        if (!FORMAT.equals(manifest.path("format").asText())) {
            throw new IllegalArgumentException(
                    "unsupported checkpoint format '"
                            + manifest.path("format").asText()
                            + "', expected "
                            + FORMAT);
        }
        final byte[] optimizer = entries.remove(OPTIMIZER);
        return new HfCheckpoint(
                manifest.path("version").asLong(),
                entries,
                optimizer == null ? Map.of() : SafeTensors.read(optimizer).tensors(),
                manifest.hasNonNull("lora")
                        ? Optional.of(LoraConfig.parse(manifest.get("lora").asText()))
                        : Optional.empty());
    }

    /**
     * Writes the checkpoint's files (not the manifest, not the optimizer state) into {@code dir}, a
     * directory Hugging Face's {@code from_pretrained} and {@link HfDecoder#load} read.
     */
    public Path writeTo(final Path dir) {
        try {
            Files.createDirectories(dir);
            for (final Map.Entry<String, byte[]> e : files.entrySet()) {
                Files.write(dir.resolve(e.getKey()), e.getValue());
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write checkpoint to " + dir, e);
        }
        return dir;
    }

    /** Total bytes of the checkpoint's files. */
    public long sizeBytes() {
        long n = 0;
        for (final byte[] b : files.values()) {
            n += b.length;
        }
        return n;
    }

    /** Deletes a directory tree written by {@link #writeTo} (best effort). */
    public static void deleteTree(final Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (final IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
