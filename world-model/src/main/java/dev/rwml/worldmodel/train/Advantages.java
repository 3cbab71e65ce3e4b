package dev.rwml.worldmodel.train;

/** Group-relative advantages of GRPO: {@code (r - mean) / (std + eps)}, or {@code r - mean}. */
public final class Advantages {

    private static final double EPS = 1e-6;

    private Advantages() {}

    /** Advantages of one group's rewards; all zero when every reward is equal. */
    public static double[] of(final double[] rewards, final boolean normaliseByStd) {
        if (rewards.length == 0) {
            return new double[0];
        }
        double mean = 0;
        for (final double r : rewards) {
            mean += r;
        }
        mean /= rewards.length;
        double var = 0;
        for (final double r : rewards) {
            var += (r - mean) * (r - mean);
        }
        final double std = Math.sqrt(var / rewards.length);
        final double[] out = new double[rewards.length];
        for (int i = 0; i < rewards.length; i++) {
            out[i] = normaliseByStd ? (rewards[i] - mean) / (std + EPS) : rewards[i] - mean;
        }
        return out;
    }
}
