package dev.rwml.trainer;

import java.util.Locale;

/** What the trainer optimises on the rewards stream. */
public enum Objective {
    /** Group-relative policy optimisation on the sampled predictions and their rewards (RWML). */
    GRPO,
    /** Supervised fine-tuning on the observed next states (the paper's WM-SFT baseline). */
    SFT;

    /** Parses {@code grpo} or {@code sft}, case-insensitively. */
    public static Objective parse(final String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "objective must be grpo or sft, got '" + text + "'", e);
        }
    }

    /** The lower-case name the manifest records. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
