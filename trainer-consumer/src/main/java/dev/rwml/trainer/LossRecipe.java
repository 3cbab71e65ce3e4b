package dev.rwml.trainer;

import dev.rwml.worldmodel.train.GrpoConfig;
import java.util.Locale;

/**
 * A documented combination of GRPO loss settings, chosen with the trainer's {@code recipe}; any of
 * its settings given explicitly overrides the recipe's value.
 *
 * <ul>
 *   <li>{@code grpo} (Shao et al., the RWML paper): per-sequence mean, clip 0.2 / 0.2, k3 KL 0.001,
 *       advantages divided by the group's std.
 *   <li>{@code dr-grpo} (Liu et al.): token sum over sequences x the sampling's max new tokens (no
 *       length normalisation), clip 0.2 / 0.2, KL 0.001, advantages not divided by the std.
 *   <li>{@code dapo} (Yu et al.): token mean, clip-higher 0.2 / 0.28, no KL; dynamic sampling (drop
 *       all-pass and all-fail groups and fill the batch with others) is what the trainer does for
 *       every recipe, since such groups have advantage 0.
 * </ul>
 */
public enum LossRecipe {
    GRPO(new Loss(GrpoConfig.Aggregation.SEQUENCE_MEAN, 0.2, 0.2, 0.001, true)),
    DR_GRPO(new Loss(GrpoConfig.Aggregation.SEQUENCE_SUM_CONSTANT, 0.2, 0.2, 0.001, false)),
    DAPO(new Loss(GrpoConfig.Aggregation.TOKEN_MEAN, 0.2, 0.28, 0.0, true));

    /**
     * The loss settings a recipe stands for.
     *
     * @param aggregation how token terms become the loss
     * @param clipLow the ratio is clipped at 1 - it
     * @param clipHigh the ratio is clipped at 1 + it
     * @param klCoefficient the KL weight
     * @param normaliseByStd whether advantages are divided by the group's std (the reward stage's
     *     mode)
     */
    public record Loss(
            GrpoConfig.Aggregation aggregation,
            double clipLow,
            double clipHigh,
            double klCoefficient,
            boolean normaliseByStd) {}

    private final Loss loss;

    LossRecipe(final Loss loss) {
        this.loss = loss;
    }

    /** Parses {@code grpo}, {@code dr-grpo} or {@code dapo}. */
    public static LossRecipe parse(final String text) {
        for (final LossRecipe r : values()) {
            if (r.wireName().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return r;
            }
        }
        throw new IllegalArgumentException(
                "recipe must be grpo, dr-grpo or dapo, got '" + text + "'");
    }

    /** The name in settings: {@code grpo}, {@code dr-grpo} or {@code dapo}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** What the recipe sets. */
    public Loss loss() {
        return loss;
    }

    /** The aggregation named in settings: sequence-mean, token-mean or sequence-sum. */
    static GrpoConfig.Aggregation parseAggregation(final String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "sequence-mean" -> GrpoConfig.Aggregation.SEQUENCE_MEAN;
            case "token-mean" -> GrpoConfig.Aggregation.TOKEN_MEAN;
            case "sequence-sum" -> GrpoConfig.Aggregation.SEQUENCE_SUM_CONSTANT;
            default ->
                    throw new IllegalArgumentException(
                            "loss.aggregation must be sequence-mean, token-mean or sequence-sum,"
                                    + " got '"
                                    + text
                                    + "'");
        };
    }

    /** The settings name of an aggregation. */
    static String aggregationName(final GrpoConfig.Aggregation aggregation) {
        return switch (aggregation) {
            case SEQUENCE_MEAN -> "sequence-mean";
            case TOKEN_MEAN -> "token-mean";
            case SEQUENCE_SUM_CONSTANT -> "sequence-sum";
        };
    }
}
