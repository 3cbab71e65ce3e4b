package dev.rwml.worldmodel.train;

/**
 * The policy-gradient objective: PPO-style clipped ratio against the behaviour log-probs, k3 KL to
 * a frozen reference, and how per-token terms are aggregated. Presets: {@link #grpo()}, {@link
 * #drGrpo(int)} and {@link #dapo()}.
 *
 * @param clipLow ratio clipped below at 1 - clipLow (negative advantages)
 * @param clipHigh ratio clipped above at 1 + clipHigh (positive advantages)
 * @param klCoef weight of the k3 KL estimator to the reference model
 * @param aggregation how per-token losses become one loss
 * @param normaliseByStd whether {@link Advantages} divides by the group's standard deviation
 * @param importanceCap upper bound on the ratio (stale samples), with zero gradient above it
 * @param lengthNormaliser the constant divisor of {@link Aggregation#SEQUENCE_SUM_CONSTANT}
 */
public record GrpoConfig(
        double clipLow,
        double clipHigh,
        double klCoef,
        Aggregation aggregation,
        boolean normaliseByStd,
        double importanceCap,
        int lengthNormaliser) {

    /** Per-token loss aggregation. */
    public enum Aggregation {
        /** Mean over each sequence's tokens, then over sequences (GRPO). */
        SEQUENCE_MEAN,
        /** Mean over all tokens of the batch (DAPO). */
        TOKEN_MEAN,
        /** Sum over tokens divided by sequences x a constant, no length bias (Dr. GRPO). */
        SEQUENCE_SUM_CONSTANT
    }

    public GrpoConfig {
        if (clipLow < 0 || clipLow >= 1 || clipHigh < 0) {
            throw new IllegalArgumentException(
                    "clipLow must be in [0, 1) and clipHigh >= 0, got "
                            + clipLow
                            + ", "
                            + clipHigh);
        }
        if (klCoef < 0) {
            throw new IllegalArgumentException("klCoef must be >= 0, got " + klCoef);
        }
        if (!(importanceCap > 1 + clipHigh)) {
            throw new IllegalArgumentException(
                    "importanceCap must exceed 1 + clipHigh, got " + importanceCap);
        }
        if (lengthNormaliser <= 0) {
            throw new IllegalArgumentException(
                    "lengthNormaliser must be positive, got " + lengthNormaliser);
        }
    }

    /** The paper's GRPO: eps 0.2, KL 0.001, sequence mean, std-normalised advantages. */
    public static GrpoConfig grpo() {
        return new GrpoConfig(0.2, 0.2, 0.001, Aggregation.SEQUENCE_MEAN, true, 5.0, 1);
    }

    /** Dr. GRPO: no std division, no length normalisation (divide by a constant). */
    public static GrpoConfig drGrpo(final int maxNewTokens) {
        return new GrpoConfig(
                0.2, 0.2, 0.001, Aggregation.SEQUENCE_SUM_CONSTANT, false, 5.0, maxNewTokens);
    }

    /** DAPO: clip-higher (0.2 / 0.28), token-level mean, no KL. */
    public static GrpoConfig dapo() {
        return new GrpoConfig(0.2, 0.28, 0.0, Aggregation.TOKEN_MEAN, true, 5.0, 1);
    }
}
