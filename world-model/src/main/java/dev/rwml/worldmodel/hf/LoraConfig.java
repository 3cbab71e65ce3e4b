package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a Hugging Face checkpoint is trained with low-rank adapters: the base stays frozen and each
 * target projection {@code W} gains {@code (alpha / rank) * B A}, with {@code A} (rank, in) and
 * {@code B} (out, rank), as PEFT's LoRA defines it.
 *
 * @param rank inner width r of every adapter
 * @param alpha scale numerator: the update is {@code alpha / rank * B A x}
 * @param dropout dropout on the adapter's input while training (0 keeps the trainer's log-probs
 *     those of the served model, which GRPO's ratio compares against)
 * @param targets the projections adapted, by Hugging Face module name ({@code q_proj} ... {@code
 *     down_proj})
 */
public record LoraConfig(int rank, double alpha, double dropout, List<String> targets) {

    /** Every projection a decoder layer has, in the order they run. */
    public static final List<String> MODULES =
            List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj");

    private static final ObjectMapper JSON = new ObjectMapper();

    public LoraConfig {
        if (rank < 1) {
            throw new IllegalArgumentException("LoRA rank must be at least 1, got " + rank);
        }
        if (!(alpha > 0) || Double.isInfinite(alpha)) {
            throw new IllegalArgumentException("LoRA alpha must be positive, got " + alpha);
        }
        if (!(dropout >= 0 && dropout < 1)) {
            throw new IllegalArgumentException("LoRA dropout must be in [0, 1), got " + dropout);
        }
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("LoRA needs at least one target module");
        }
        for (final String t : targets) {
            if (!MODULES.contains(t)) {
                throw new IllegalArgumentException(
                        "unknown LoRA target '" + t + "'; choose from " + MODULES);
            }
        }
        targets = List.copyOf(targets);
    }

    /**
     * The sub-module of a decoder layer that holds a projection: {@code self_attn.} or {@code
     * mlp.}.
     */
    static String block(final String target) {
        return target.equals("gate_proj") || target.equals("up_proj") || target.equals("down_proj")
                ? "mlp."
                : "self_attn.";
    }

    /** The multiplier of {@code B A}: alpha / rank. */
    public float scaling() {
        return (float) (alpha / rank);
    }

    /**
     * Parses {@code r=16,alpha=32,dropout=0.05,targets=q+k+v+o}: unset keys keep their defaults
     * (rank 16, alpha twice the rank, no dropout, every projection); targets may be written short
     * ({@code q}, {@code gate}) or as module names ({@code q_proj}), joined by {@code +}.
     */
    public static LoraConfig parse(final String spec) {
        final Map<String, String> values = new LinkedHashMap<>();
        for (final String part : spec.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            final int eq = part.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(
                        "LoRA setting '" + part + "' is not key=value; " + usage());
            }
            final String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            if (!List.of("r", "rank", "alpha", "dropout", "targets").contains(key)) {
                throw new IllegalArgumentException(
                        "unknown LoRA setting '" + key + "'; " + usage());
            }
            values.put(key.equals("rank") ? "r" : key, part.substring(eq + 1).trim());
        }
        try {
            final int rank = Integer.parseInt(values.getOrDefault("r", "16"));
            final double alpha =
                    values.containsKey("alpha")
                            ? Double.parseDouble(values.get("alpha"))
                            : 2.0 * rank;
            final double dropout = Double.parseDouble(values.getOrDefault("dropout", "0"));
            final List<String> targets = new ArrayList<>();
            if (values.containsKey("targets")) {
                for (final String t : values.get("targets").split("\\+")) {
                    final String name = t.trim().toLowerCase(Locale.ROOT);
                    targets.add(name.endsWith("_proj") ? name : name + "_proj");
                }
            } else {
                targets.addAll(MODULES);
            }
            return new LoraConfig(rank, alpha, dropout, targets);
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(
                    "LoRA setting is not a number (" + e.getMessage() + "); " + usage(), e);
        }
    }

    private static String usage() {
        return "write it as r=16,alpha=32,dropout=0,targets=q+k+v+o+gate+up+down";
    }

    /**
     * PEFT's {@code adapter_config.json} for this configuration, so an adapter directory written
     * from a version loads with {@code PeftModel.from_pretrained}.
     */
    public ObjectNode toAdapterConfig(final String baseModel) {
        final ObjectNode node = JSON.createObjectNode();
        node.put("peft_type", "LORA");
        node.put("task_type", "CAUSAL_LM");
        node.put("base_model_name_or_path", baseModel);
        node.put("r", rank);
        node.put("lora_alpha", alpha);
        node.put("lora_dropout", dropout);
        node.put("bias", "none");
        node.put("fan_in_fan_out", false);
        node.put("use_rslora", false);
        final var modules = node.putArray("target_modules");
        targets.forEach(modules::add);
        return node;
    }

    /** Reads what {@link #toAdapterConfig} wrote. */
    public static LoraConfig fromAdapterConfig(final JsonNode node) {
        if (!"LORA".equals(node.path("peft_type").asText())) {
            throw new IllegalArgumentException(
                    "adapter config has peft_type '"
                            + node.path("peft_type").asText()
                            + "'; only LORA adapters are supported");
        }
        final List<String> targets = new ArrayList<>();
        node.path("target_modules").forEach(t -> targets.add(t.asText()));
        return new LoraConfig(
                node.path("r").asInt(),
                node.path("lora_alpha").asDouble(),
                node.path("lora_dropout").asDouble(),
                targets);
    }

    /** {@code r=16,alpha=32,dropout=0,targets=q+k+...} as {@link #parse} reads it. */
    @Override
    public String toString() {
        final List<String> shortNames = new ArrayList<>();
        targets.forEach(t -> shortNames.add(t.replace("_proj", "")));
        return String.format(
                Locale.ROOT,
                "r=%d,alpha=%s,dropout=%s,targets=%s",
                rank,
                trim(alpha),
                trim(dropout),
                String.join("+", shortNames));
    }

    private static String trim(final double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
