package dev.rwml.worldmodel.train;

import ai.djl.ndarray.NDArray;

/**
 * The training objectives over per-token log-probs (rows, positions) and a 0/1 mask of the
 * completion tokens: SFT cross-entropy and the clipped GRPO surrogate with a k3 KL term.
 */
public final class Losses {

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
        final NDArray ratio = logProbs.sub(behaviour).mul(mask).exp();
        final NDArray capped = ratio.minimum((float) config.importanceCap());
        final NDArray unclipped = capped.mul(advantages);
        final NDArray clipped =
                capped.clip(1 - config.clipLow(), 1 + config.clipHigh()).mul(advantages);
        NDArray perToken = unclipped.minimum(clipped).neg();
        NDArray kl = null;
        if (reference != null) {
            // k3 = exp(ref - logp) - (ref - logp) - 1: unbiased, non-negative (Schulman)
            final NDArray delta = reference.sub(logProbs).mul(mask);
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
