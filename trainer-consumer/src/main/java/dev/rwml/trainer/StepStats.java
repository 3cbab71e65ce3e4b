package dev.rwml.trainer;

/**
 * What one optimizer step reports.
 *
 * @param loss the objective's loss on the mini-batch
 * @param kl mean KL estimate to the reference (0 for SFT)
 * @param clipFraction share of tokens whose ratio was clipped (0 for SFT)
 * @param gradNorm global gradient norm before clipping
 * @param tokens completion tokens the step trained on
 */
public record StepStats(double loss, double kl, double clipFraction, double gradNorm, long tokens) {

    /** Rejects non-finite losses: a NaN step must stop the trainer, not become a version. */
    public StepStats {
        if (!Double.isFinite(loss)) {
            throw new IllegalStateException(
                    "training diverged: the step's loss is "
                            + loss
                            + "; lower learningRate or raise maxGradNorm's strictness and restart");
        }
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must be >= 0, got " + tokens);
        }
    }
}
