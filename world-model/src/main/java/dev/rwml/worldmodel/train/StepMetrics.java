package dev.rwml.worldmodel.train;

/**
 * What one optimiser step did.
 *
 * @param step 0-based optimiser step
 * @param loss the aggregated loss that was minimised
 * @param kl mean per-token k3 KL to the reference model (0 without one)
 * @param clipFraction fraction of completion tokens whose clipped objective was active
 * @param gradNorm global gradient L2 norm before clipping
 * @param tokens completion tokens trained on
 * @param learningRate learning rate applied
 * @param meanRatio mean per-token probability ratio to the behaviour policy (1 for SFT)
 * @param skipped empty when the update was applied; otherwise why it was skipped and the batch's
 *     diagnostics (largest log-ratio and KL exponent, first non-finite gradient, largest |logit|)
 */
public record StepMetrics(
        long step,
        double loss,
        double kl,
        double clipFraction,
        double gradNorm,
        int tokens,
        double learningRate,
        double meanRatio,
        String skipped) {

    /** Whether the optimiser skipped this step's update. */
    public boolean wasSkipped() {
        return !skipped.isEmpty();
    }
}
