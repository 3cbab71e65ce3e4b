package dev.rwml.worldmodel.hf;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The Hugging Face decoder architectures the project can load, named as {@code config.json}'s
 * {@code architectures} names them, with what sets each apart.
 */
public enum HfArchitecture {
    /** Qwen2 and Qwen2.5: biases on the q, k and v projections, none on o. */
    QWEN2("Qwen2ForCausalLM", true),
    /** Qwen3: per-head RMSNorm of queries and keys before the rotary embedding. */
    QWEN3("Qwen3ForCausalLM", false),
    /** Llama 2/3 shapes, SmolLM2 and TinyLlama included. */
    LLAMA("LlamaForCausalLM", false);

    private final String className;
    private final boolean qkvBiasAlways;

    HfArchitecture(final String className, final boolean qkvBiasAlways) {
        this.className = className;
        this.qkvBiasAlways = qkvBiasAlways;
    }

    /** The name {@code config.json} lists under {@code architectures}. */
    public String className() {
        return className;
    }

    /** Whether q, k and v carry biases whatever {@code attention_bias} says (Qwen2). */
    boolean qkvBiasAlways() {
        return qkvBiasAlways;
    }

    /** Whether queries and keys are RMS-normalised per head before the rotary embedding. */
    public boolean qkNorm() {
        return this == QWEN3;
    }

    /** The architecture of a class name, or an error that lists the supported ones. */
    public static HfArchitecture of(final String className) {
        for (final HfArchitecture a : values()) {
            if (a.className.equals(className)) {
                return a;
            }
        }
        throw new IllegalArgumentException(
                "unsupported architecture "
                        + className
                        + ": supported are "
                        + supported()
                        + " (convert the checkpoint or add the architecture to HfArchitecture)");
    }

    /** The supported class names, comma separated. */
    public static String supported() {
        return Arrays.stream(values())
                .map(HfArchitecture::className)
                .collect(Collectors.joining(", "));
    }
}
