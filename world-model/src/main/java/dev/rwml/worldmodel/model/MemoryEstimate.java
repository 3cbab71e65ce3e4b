package dev.rwml.worldmodel.model;

import ai.djl.Device;
import ai.djl.util.cuda.CudaUtils;
import java.io.IOException;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * What a batch needs beyond the loaded weights, part by part, in bytes of F32 compute: an upper
 * estimate from the decoder's sizes, so a stage can refuse settings that cannot fit before it
 * consumes anything, instead of dying in the middle of a batch.
 *
 * @param parts bytes by what holds them, in the order they are reported
 */
public record MemoryEstimate(Map<String, Long> parts) {

    private static final long FLOAT = Float.BYTES;
    private static final Path MEMINFO = Path.of("/proc/meminfo");

    /**
     * What the engine keeps from its first passes over a loaded model, as a fraction of the
     * weights' bytes: measured at SmolLM2-135M's shape with one sampled row (422 MB above the
     * loaded model, 0.78 of its 538 MB of float32 weights; {@code SmolLm2ShapeBenchmark}), rounded
     * up.
     */
    private static final double ENGINE_BUFFERS = 0.8;

    /** Copies the parts, keeping their order. */
    public MemoryEstimate {
        parts = Collections.unmodifiableMap(new LinkedHashMap<>(parts));
    }

    /**
     * Sampling {@code g} completions of {@code prompts} prompts of up to {@code promptTokens}
     * tokens, {@code newTokens} each, as the generator does it without a gradient: the prompts' KV
     * cache and its copy per row, the prefill's activations of one layer at a time (attention
     * scores included) and each decode step's logits with their probabilities in the JVM.
     */
    public static MemoryEstimate sampling(
            final DecoderShape shape,
            final int prompts,
            final int g,
            final int promptTokens,
            final int newTokens) {
        final long rows = (long) prompts * g;
        final long capacity = (long) promptTokens + newTokens;
        final long kvPerToken = 2L * shape.layers() * shape.kvHeads() * shape.headDim() * FLOAT;
        final Map<String, Long> parts = new LinkedHashMap<>();
        parts.put("KV cache", kvPerToken * capacity * (rows + prompts));
        parts.put(
                "prefill activations",
                prompts
                        * (long) promptTokens
                        * FLOAT
                        * (6L * shape.hidden()
                                + 3L * shape.intermediate()
                                + 2L * shape.heads() * promptTokens));
        parts.put("logits", rows * shape.vocab() * FLOAT * 4);
        parts.put("engine buffers", (long) (ENGINE_BUFFERS * shape.parameters() * FLOAT));
        return new MemoryEstimate(parts);
    }

    /** Bytes in all. */
    public long total() {
        return parts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** E.g. {@code 1.92 GiB (KV cache 1.50 GiB, prefill activations 310 MiB, ...)}. */
    public String describe() {
        return size(total())
                + " ("
                + parts.entrySet().stream()
                        .map(e -> e.getKey() + " " + size(e.getValue()))
                        .collect(Collectors.joining(", "))
                + ")";
    }

    /**
     * The memory free for new tensors on {@code device}: a GPU's free memory as CUDA reports it, or
     * the host's {@code MemAvailable} (Linux); empty where neither can be read.
     */
    public static OptionalLong available(final Device device) {
        if (device.isGpu()) {
            final MemoryUsage usage = CudaUtils.getGpuMemory(device);
            return usage.getMax() > 0
                    ? OptionalLong.of(usage.getMax() - usage.getCommitted())
                    : OptionalLong.empty();
        }
        try {
            for (final String line : Files.readAllLines(MEMINFO)) {
                if (line.startsWith("MemAvailable:")) {
                    return OptionalLong.of(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024);
                }
            }
        } catch (final IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /** Bytes as GiB with two decimals from 1 GiB, else as whole MiB. */
    public static String size(final long bytes) {
        return bytes >= 1L << 30
                ? String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30))
                : String.format(Locale.ROOT, "%d MiB", Math.round(bytes / (double) (1L << 20)));
    }
}
