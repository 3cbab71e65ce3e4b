package dev.rwml.evaluation;

import java.util.Locale;

/**
 * An estimate with its 95% bootstrap interval.
 *
 * @param estimate the statistic on the transitions as they are
 * @param low the 2.5th percentile of the bootstrap replicates
 * @param high the 97.5th percentile of the bootstrap replicates
 */
public record Interval(double estimate, double low, double high) {

    /** {@code 0.245 [0.201, 0.290]}. */
    public String format() {
        return String.format(Locale.ROOT, "%.3f [%.3f, %.3f]", estimate, low, high);
    }

    /** Whether {@code value} lies in [low, high]. */
    public boolean covers(final double value) {
        return value >= low && value <= high;
    }
}
