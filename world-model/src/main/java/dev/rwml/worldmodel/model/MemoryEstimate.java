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

    /**
     * Floats per position and layer that a training step keeps for its backward pass, as a multiple
     * of the layer's widths (hidden + intermediate): measured at SmolLM2-135M's shape, where a GRPO
     * step over 8 completions of a 128-token prompt took 3,320 MiB above the loaded model with the
     * prompt shared and 7,913 MiB with a copy of it per completion ({@code SmolLm2ShapeBenchmark}):
     * beside the attention scores (about 400 MiB of the difference), 4,190 MiB for 896 more
     * positions, 19.3 times the widths per position and layer, rounded up.
     */
    private static final int SAVED_WIDTHS = 20;

    /**
     * What else the engine keeps during a training step, as a fraction of the weights' bytes: the
     * rest of the same measurement once gradients, activations, attention scores and log-probs are
     * counted (about 1,390 MiB, 2.7 times the 513 MiB of float32 weights), rounded up. With these
     * two figures the estimate of the step with a copy of the prompt per completion comes to 8,006
     * MiB, against the 7,913 measured.
     */
    private static final double TRAINING_ENGINE_BUFFERS = 2.8;

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

    /**
     * One training step over {@code batch} with a gradient, as the trainer runs it: the gradients
     * and AdamW's two moments of the {@code trainable} parameters (every weight, or a LoRA
     * adapter's), the tensors each layer keeps for the backward pass over the prompts' prefix pass
     * and the completions (attention scores included), the log-probabilities over the whole
     * vocabulary with their gradient, and the engine's buffers. A GRPO step's reference pass runs
     * without a gradient and adds only its result. Training through a LoRA adapter also keeps
     * {@code adapterFloatsPerToken} per position (its projections' inputs and outputs); 0 without
     * one.
     */
    public static MemoryEstimate trainingStep(
            final DecoderShape shape,
            final long trainable,
            final long adapterFloatsPerToken,
            final SharedPromptBatch batch) {
        int promptTokens = 0;
        for (final int[] p : batch.prompts()) {
            promptTokens = Math.max(promptTokens, p.length);
        }
        final long prefix = (long) batch.prompts().size() * promptTokens;
        final long completion = (long) batch.rows() * batch.width();
        final long scores =
                (long) shape.heads()
                        * (prefix * promptTokens + completion * (promptTokens + batch.width()));
        final Map<String, Long> parts = new LinkedHashMap<>();
        parts.put("gradients and AdamW moments", 3 * trainable * FLOAT);
        parts.put(
                "activations",
                (prefix + completion)
                        * shape.layers()
                        * SAVED_WIDTHS
                        * (shape.hidden() + shape.intermediate())
                        * FLOAT);
        if (adapterFloatsPerToken > 0) {
            parts.put("adapter activations", (prefix + completion) * adapterFloatsPerToken * FLOAT);
        }
        parts.put("attention scores", 3 * scores * shape.layers() * FLOAT);
        parts.put("log-probs", 3 * completion * shape.vocab() * FLOAT);
        parts.put("engine buffers", (long) (TRAINING_ENGINE_BUFFERS * shape.parameters() * FLOAT));
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

    /** Bytes as GiB with two decimals from 1 GiB, as whole MiB from 1 MiB, else as whole KiB. */
    public static String size(final long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
        }
        return bytes >= 1L << 20
                ? String.format(Locale.ROOT, "%d MiB", Math.round(bytes / (double) (1L << 20)))
                : String.format(Locale.ROOT, "%d KiB", Math.round(bytes / 1024.0));
    }
}
