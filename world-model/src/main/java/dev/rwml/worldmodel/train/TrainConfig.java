package dev.rwml.worldmodel.train;

/**
 * Optimiser settings: AdamW, global gradient-norm clipping and a learning-rate schedule (linear
 * warmup, then constant or cosine decay to {@code minLrRatio} of the peak at {@code totalSteps}).
 *
 * @param learningRate peak learning rate
 * @param weightDecay decoupled weight decay, applied to matrices only
 * @param beta1 AdamW first-moment decay
 * @param beta2 AdamW second-moment decay
 * @param epsilon AdamW denominator guard
 * @param maxGradNorm global L2 norm the gradients are scaled down to; 0 disables clipping
 * @param warmupSteps steps of linear warmup from 0
 * @param totalSteps steps of the cosine schedule (ignored for constant)
 * @param schedule shape after warmup
 * @param minLrRatio floor of the cosine decay as a fraction of the peak
 */
public record TrainConfig(
        double learningRate,
        double weightDecay,
        double beta1,
        double beta2,
        double epsilon,
        double maxGradNorm,
        int warmupSteps,
        int totalSteps,
        Schedule schedule,
        double minLrRatio) {

    /** Learning-rate shape after warmup. */
    public enum Schedule {
        /** Stays at the peak: continual training has no end. */
        CONSTANT,
        /** Half a cosine from the peak down to the floor at {@code totalSteps}. */
        COSINE
    }

    public TrainConfig {
        if (!(learningRate > 0)) {
            throw new IllegalArgumentException("learningRate must be > 0, got " + learningRate);
        }
        if (weightDecay < 0 || maxGradNorm < 0 || warmupSteps < 0 || totalSteps < 0) {
            throw new IllegalArgumentException(
                    "weightDecay, maxGradNorm, warmupSteps and totalSteps must be >= 0");
        }
        if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1)) {
            throw new IllegalArgumentException("betas must be in [0, 1)");
        }
    }

    /** Supervised pretraining of a small base model: lr 3e-3, warmup 20, cosine over N steps. */
    public static TrainConfig sft(final int totalSteps) {
        return new TrainConfig(
                3e-3,
                0.01,
                0.9,
                0.95,
                1e-8,
                1.0,
                Math.min(20, totalSteps / 10),
                totalSteps,
                Schedule.COSINE,
                0.1);
    }

    /** Continual GRPO: a constant learning rate after a short warmup. */
    public static TrainConfig grpo(final double learningRate) {
        return new TrainConfig(
                learningRate, 0.0, 0.9, 0.999, 1e-8, 1.0, 10, 0, Schedule.CONSTANT, 1.0);
    }

    /** The learning rate of (0-based) optimiser step {@code step}. */
    public double learningRateAt(final long step) {
        if (step < warmupSteps) {
            return learningRate * (step + 1) / (warmupSteps + 1);
        }
        if (schedule == Schedule.CONSTANT || totalSteps <= warmupSteps) {
            return learningRate;
        }
        final double progress =
                Math.min(1.0, (double) (step - warmupSteps) / (totalSteps - warmupSteps));
        final double floor = learningRate * minLrRatio;
        return floor + (learningRate - floor) * 0.5 * (1 + Math.cos(Math.PI * progress));
    }
}
