package dev.rwml.evaluation;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Percentile bootstrap of means over transitions: each replicate draws as many transitions as there
 * are, with replacement, and every metric of a replicate is computed on the same draw. The seed
 * alone fixes the draws, so the same seed gives the same interval.
 */
public final class Bootstrap {

    private final int resamples;
    private final long seed;

    /**
     * @param resamples replicates (B), at least 1
     * @param seed the seed of the draws
     */
    public Bootstrap(final int resamples, final long seed) {
        if (resamples < 1) {
            throw new IllegalArgumentException(
                    "--bootstrap must be at least 1 resample, got " + resamples);
        }
        this.resamples = resamples;
        this.seed = seed;
    }

    /**
     * The mean of each column with its interval.
     *
     * @param columns metric values, {@code columns[m][i]} the value of metric m on transition i;
     *     every column as long as the others
     * @param key names the group resampled (e.g. a split and task type): groups get independent
     *     draws that stay the same from one model to the next, so models are compared on the same
     *     resampled transitions
     */
    public Interval[] means(final double[][] columns, final String key) {
        final int n = columns.length == 0 ? 0 : columns[0].length;
        for (final double[] c : columns) {
            if (c.length != n) {
                throw new IllegalArgumentException("every metric needs one value per transition");
            }
        }
        final Interval[] out = new Interval[columns.length];
        if (n == 0) {
            Arrays.fill(out, new Interval(Double.NaN, Double.NaN, Double.NaN));
            return out;
        }
        final double[][] replicates = new double[columns.length][resamples];
        final SplittableRandom random = new SplittableRandom(seed ^ fnv(key));
        final int[] draw = new int[n];
        for (int b = 0; b < resamples; b++) {
            for (int i = 0; i < n; i++) {
                draw[i] = random.nextInt(n);
            }
            for (int m = 0; m < columns.length; m++) {
                double sum = 0;
                for (final int i : draw) {
                    sum += columns[m][i];
                }
                replicates[m][b] = sum / n;
            }
        }
        for (int m = 0; m < columns.length; m++) {
            Arrays.sort(replicates[m]);
            out[m] =
                    new Interval(
                            mean(columns[m]),
                            quantile(replicates[m], 0.025),
                            quantile(replicates[m], 0.975));
        }
        return out;
    }

    /** The mean of one column with its interval. */
    public Interval mean(final double[] values, final String key) {
        return means(new double[][] {values}, key)[0];
    }

    /**
     * A ratio of sums, {@code sum(numerators) / sum(denominators)}, with its interval: each
     * replicate draws units (e.g. episodes) as {@link #means} does; replicates whose denominator is
     * 0 are left out. NaN when the denominator of the units as they are is 0.
     */
    public Interval ratio(
            final double[] numerators, final double[] denominators, final String key) {
        final int n = numerators.length;
        if (denominators.length != n) {
            throw new IllegalArgumentException("a ratio needs one denominator per numerator");
        }
        final double den = sum(denominators);
        if (n == 0 || den == 0) {
            return new Interval(Double.NaN, Double.NaN, Double.NaN);
        }
        final SplittableRandom random = new SplittableRandom(seed ^ fnv(key));
        final double[] replicates = new double[resamples];
        int kept = 0;
        for (int b = 0; b < resamples; b++) {
            double num = 0;
            double d = 0;
            for (int i = 0; i < n; i++) {
                final int j = random.nextInt(n);
                num += numerators[j];
                d += denominators[j];
            }
            if (d > 0) {
                replicates[kept++] = num / d;
            }
        }
        if (kept == 0) {
            return new Interval(sum(numerators) / den, Double.NaN, Double.NaN);
        }
        final double[] sorted = Arrays.copyOf(replicates, kept);
        Arrays.sort(sorted);
        return new Interval(
                sum(numerators) / den, quantile(sorted, 0.025), quantile(sorted, 0.975));
    }

    private static double sum(final double[] values) {
        double s = 0;
        for (final double v : values) {
            s += v;
        }
        return s;
    }

    static double mean(final double[] values) {
        double sum = 0;
        for (final double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /** Linear interpolation between the order statistics around q (R's type 7). */
    static double quantile(final double[] sorted, final double q) {
        final double h = (sorted.length - 1) * q;
        final int lo = (int) Math.floor(h);
        final int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
    }

    /** A stable 64-bit hash (String.hashCode is only 32 bits wide). */
    static long fnv(final String key) {
        long h = 0xcbf29ce484222325L;
        for (final byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h ^= b;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
