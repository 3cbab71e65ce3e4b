package dev.rwml.worldmodel.train;

import ai.djl.ndarray.NDArray;

/**
 * The training objectives over per-token log-probs (rows, positions) and a 0/1 mask of the
 * completion tokens: SFT cross-entropy and the clipped GRPO surrogate with a k3 KL term.
 */
public final class Losses {

    /**
     * Largest log-ratio exponentiated (e^30 is about 1e13, far from float's limit): beyond it the
     * ratio and the k3 KL term are flat, with no gradient.
     */
    static final float MAX_LOG_RATIO = 30f;

    private Losses() {}

    /** A loss and the per-token quantities its metrics are computed from. */
    public record GrpoTerms(NDArray loss, NDArray ratio, NDArray kl) {}

    /** Mean negative log-likelihood of the masked tokens. */
    public static NDArray sft(final NDArray logProbs, final NDArray mask) {
        return logProbs.mul(mask).sum().neg().div(mask.sum().maximum(1f));
    }

    /**
     * The GRPO loss. {@code behaviour} and {@code reference} hold log-probs at the same positions
     * (any value where the mask is 0); {@code reference} may be null (no KL); {@code advantages} is
     * (rows, 1). The ratio exp(logp - behaviour) is capped at the importance cap (no gradient above
     * it), then the surrogate min(r A, clip(r, 1 - clipLow, 1 + clipHigh) A) is maximised.
     */
    public static GrpoTerms grpo(
            final NDArray logProbs,
            final NDArray mask,
            final NDArray behaviour,
            final NDArray reference,
            final NDArray advantages,
            final GrpoConfig config) {
        // Capping the log-ratio before exp keeps a far-off-policy token from overflowing to
        // infinity, whose zero-gradient branch of the cap would still back-propagate NaN.
        final NDArray logRatio = logProbs.sub(behaviour).mul(mask);
        final NDArray ratio = logRatio.minimum(MAX_LOG_RATIO).exp();
        final NDArray capped = logRatio.minimum((float) Math.log(config.importanceCap())).exp();
        final NDArray unclipped = capped.mul(advantages);
        final NDArray clipped =
                capped.clip(1 - config.clipLow(), 1 + config.clipHigh()).mul(advantages);
        NDArray perToken = unclipped.minimum(clipped).neg();
        NDArray kl = null;
        if (reference != null) {
            // k3 = exp(ref - logp) - (ref - logp) - 1: unbiased, non-negative (Schulman)
            final NDArray delta = reference.sub(logProbs).mul(mask).minimum(MAX_LOG_RATIO);
            kl = delta.exp().sub(delta).sub(1f);
            if (config.klCoef() > 0) {
                perToken = perToken.add(kl.mul((float) config.klCoef()));
            }
        }
        return new GrpoTerms(aggregate(perToken.mul(mask), mask, config), ratio, kl);
    }

    private static NDArray aggregate(
            final NDArray maskedPerToken, final NDArray mask, final GrpoConfig config) {
        final long rows = mask.getShape().get(0);
        return switch (config.aggregation()) {
            case TOKEN_MEAN -> maskedPerToken.sum().div(mask.sum().maximum(1f));
            case SEQUENCE_MEAN ->
                    maskedPerToken
                            .sum(new int[] {1})
                            .div(mask.sum(new int[] {1}).maximum(1f))
                            .mean();
            case SEQUENCE_SUM_CONSTANT ->
                    maskedPerToken.sum().div((float) rows * config.lengthNormaliser());
        };
    }
}
