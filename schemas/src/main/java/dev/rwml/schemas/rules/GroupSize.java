package dev.rwml.schemas.rules;

import dev.rwml.events.Sampling;

/**
 * The one check of a group's size, shared by the reward stage and the trainer: a group must hold
 * the G samples its {@link Sampling} says it was generated with (GRPO's advantages are relative to
 * the group; a group of another size, e.g. one with a sample repeated, would bias them).
 */
public final class GroupSize {

    private GroupSize() {}

    /**
     * What is wrong with {@code samples} samples under {@code sampling}, or null when they agree
     * (or the group predates the recorded G, {@code groupSize} 0).
     */
    public static String mismatch(final int samples, final Sampling sampling) {
        final int g = sampling.getGroupSize();
        if (g <= 0 || samples == g) {
            return null;
        }
        return samples + " samples but was sampled with G = " + g;
    }
}
