package dev.rwml.scoring.group;

/**
 * The reward statistics of one prediction group and each sample's advantage.
 *
 * @param mean mean reward
 * @param std population standard deviation of the rewards
 * @param passRate the share of samples with reward 1
 * @param advantages one per sample, in sample order
 */
public record GroupStatistics(double mean, double std, double passRate, double[] advantages) {

    /** Computes the statistics of binary rewards. */
    public static GroupStatistics of(
            final double[] rewards, final AdvantageMode mode, final double epsilon) {
        if (rewards.length == 0) {
            throw new IllegalArgumentException("a prediction group needs at least one sample");
        }
        double sum = 0;
        int passed = 0;
        for (final double reward : rewards) {
            sum += reward;
            if (reward > 0) {
                passed++;
            }
        }
        final double mean = sum / rewards.length;
        double squares = 0;
        for (final double reward : rewards) {
            squares += (reward - mean) * (reward - mean);
        }
        final double std = Math.sqrt(squares / rewards.length);
        final double[] advantages = new double[rewards.length];
        for (int i = 0; i < rewards.length; i++) {
            final double centred = rewards[i] - mean;
            advantages[i] = mode == AdvantageMode.GRPO ? centred / (std + epsilon) : centred;
        }
        return new GroupStatistics(mean, std, (double) passed / rewards.length, advantages);
    }
}
