package dev.rwml.worldmodel.train;

import ai.djl.ndarray.NDArray;
import dev.rwml.worldmodel.model.Scalars;

/**
 * The training objectives over per-token log-probs (rows, positions) and a 0/1 mask of the
 * completion tokens: SFT cross-entropy and the clipped GRPO surrogate with a k3 KL term.
 */
public final class Losses {

    /**
     * Largest |log-ratio| exponentiated, for the reported ratio and the KL term: e^20 is about 5e8,
     * so neither the value nor its gradient can overflow a float; beyond it both are flat.
     */
    static final float MAX_LOG_RATIO = 20f;

    /**
     * Largest k3 value of one token: a token the policy moved far from the reference adds at most
     * this much, and no gradient beyond it, instead of a weight of up to e^20.
     */
    static final float MAX_KL = 10f;

    private Losses() {}

    /**
     * A loss and the per-token quantities its metrics and diagnostics are computed from.
     *
     * @param loss the aggregated loss
     * @param ratio per-token ratio to the behaviour policy (log-ratio clamped)
     * @param kl per-token k3 KL to the reference, clamped; null without a reference
     * @param logRatio per-token masked log-ratio before any clamp
     * @param klExponent per-token masked {@code ref - logp} before any clamp; null without one
     */
    public record GrpoTerms(
            NDArray loss, NDArray ratio, NDArray kl, NDArray logRatio, NDArray klExponent) {}

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
        final NDArray ratio = logRatio.clip(-MAX_LOG_RATIO, MAX_LOG_RATIO).exp();
        final NDArray capped =
                logRatio.minimum(Scalars.of(logRatio, Math.log(config.importanceCap()))).exp();
        final NDArray unclipped = capped.mul(advantages);
        final NDArray clipped =
                capped.clip(1 - config.clipLow(), 1 + config.clipHigh()).mul(advantages);
        NDArray perToken = unclipped.minimum(clipped).neg();
        NDArray kl = null;
        NDArray klExponent = null;
        if (reference != null) {
            // k3 = exp(ref - logp) - (ref - logp) - 1: unbiased, non-negative (Schulman); both
            // the exponent and the value are clamped so one token cannot dominate the gradient.
            klExponent = reference.sub(logProbs).mul(mask);
            final NDArray delta = klExponent.clip(-MAX_LOG_RATIO, MAX_LOG_RATIO);
            final NDArray k3 = delta.exp().sub(delta).sub(1f);
            kl = k3.minimum(Scalars.of(k3, MAX_KL));
            if (config.klCoef() > 0) {
                perToken = perToken.add(kl.mul(Scalars.of(kl, config.klCoef())));
            }
        }
        return new GrpoTerms(
                aggregate(perToken.mul(mask), mask, config), ratio, kl, logRatio, klExponent);
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
                    maskedPerToken
                            .sum()
                            .div(
                                    Scalars.of(
                                            maskedPerToken,
                                            (double) rows * config.lengthNormaliser()));
        };
    }
}
