package dev.rwml.scoring.score;

import java.util.Objects;

/**
 * One reward rule: a comparison method and the threshold a sample's similarity must exceed
 * (strictly) to earn reward 1; written as {@code method:threshold}, e.g. {@code cosine:0.8}.
 *
 * @param method how predicted and observed states are compared
 * @param threshold a similarity above it earns reward 1, in [0, 1)
 */
public record RewardSpec(RewardMethod method, double threshold) {

    /** The paper's threshold for environment observations (tau_d 0.2). */
    public static final double TEXT_COSINE_THRESHOLD = 0.8;

    /** The paper's threshold for simulated user replies (tau_d 0.4). */
    public static final double USER_COSINE_THRESHOLD = 0.6;

    /** Rounded ROUGE-L must reach 0.8 (the next step above 0.6) on masked tool outputs. */
    public static final double TOOL_ROUGE_THRESHOLD = 0.6;

    /** Exact match yields 0 or 1; any threshold in [0, 1) means "equal". */
    public static final double EXACT_THRESHOLD = 0.5;

    /**
     * {@link RewardMethod#ITEM_SET_F1}'s default: where at most 5% of one-item swaps pass and every
     * paraphrase does in {@code RewardCalibrationBenchmark} (ALFWorld valid_unseen, 2026-12-07).
     */
    public static final double ITEM_SET_THRESHOLD = 0.93;

    /** Validates the method and the threshold range. */
    public RewardSpec {
        Objects.requireNonNull(method, "method");
        if (!(threshold >= 0 && threshold < 1)) {
            throw new IllegalArgumentException(
                    "reward threshold must be in [0, 1) because similarity above it earns 1, got "
                            + threshold);
        }
    }

    /** Embedding cosine with the given threshold. */
    public static RewardSpec cosine(final double threshold) {
        return new RewardSpec(RewardMethod.EMBEDDING_COSINE, threshold);
    }

    /** Masked ROUGE-L with the given threshold. */
    public static RewardSpec rougeL(final double threshold) {
        return new RewardSpec(RewardMethod.ROUGE_L, threshold);
    }

    /** Exact match. */
    public static RewardSpec exactMatch() {
        return new RewardSpec(RewardMethod.EXACT_MATCH, EXACT_THRESHOLD);
    }

    /** The reward a similarity earns: 1 above the threshold, else 0. */
    public double reward(final double similarity) {
        return similarity > threshold ? 1.0 : 0.0;
    }

    /**
     * Parses {@code method[:threshold]}, e.g. {@code embedding-cosine:0.8}, {@code rouge:0.6},
     * {@code exact}; a missing threshold takes the method's default.
     */
    public static RewardSpec parse(final String text) {
        final String[] parts = text.strip().split(":", -1);
        if (parts.length > 2 || parts[0].isBlank()) {
            throw new IllegalArgumentException(
                    "reward spec '"
                            + text
                            + "' must look like method[:threshold], e.g. cosine:0.8");
        }
        final RewardMethod method = RewardMethod.parse(parts[0]);
        if (parts.length == 1) {
            return new RewardSpec(method, defaultThreshold(method));
        }
        try {
            return new RewardSpec(method, Double.parseDouble(parts[1].strip()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "reward spec '" + text + "' has a threshold that is not a number", e);
        }
    }

    private static double defaultThreshold(final RewardMethod method) {
        return switch (method) {
            case EMBEDDING_COSINE -> TEXT_COSINE_THRESHOLD;
            case ROUGE_L -> TOOL_ROUGE_THRESHOLD;
            case EXACT_MATCH -> EXACT_THRESHOLD;
            case ITEM_SET_F1 -> ITEM_SET_THRESHOLD;
        };
    }

    @Override
    public String toString() {
        return method.wireName() + ":" + threshold;
    }
}
