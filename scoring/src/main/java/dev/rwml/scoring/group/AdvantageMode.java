package dev.rwml.scoring.group;

import java.util.Locale;

/** How a sample's advantage is computed from the rewards of its group. */
public enum AdvantageMode {
    /** GRPO: {@code (r - mean) / (std + eps)}. */
    GRPO,
    /** Dr. GRPO: {@code r - mean}, without the std normalisation that favours easy groups. */
    DR_GRPO;

    /** Parses {@code grpo} or {@code dr-grpo} (also {@code dr_grpo}), case-insensitively. */
    public static AdvantageMode parse(final String text) {
        final String name = text.strip().toUpperCase(Locale.ROOT).replace('-', '_');
        try {
            return valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown advantage mode '" + text + "'; use grpo or dr-grpo", e);
        }
    }
}
