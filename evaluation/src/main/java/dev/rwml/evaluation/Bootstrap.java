package dev.rwml.evaluation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * Percentile bootstrap of means over transitions, or over clusters of them (a held-out set's
 * episodes): each replicate draws as many clusters as there are, with replacement, each drawn
 * cluster bringing all its transitions, and every metric of a replicate is computed on the same
 * draw. Differences between two models are bootstrapped paired, transition by transition ({@link
 * #pairedDifference}). The seed and key alone fix the draws, so the same seed gives the same
 * interval.
 */
public final class Bootstrap {

    /**
     * One transition's figure under two models (or two settings), for a paired difference.
     *
     * @param cluster what the bootstrap resamples as a whole: the transition's episode (rows of
     *     several seeds of the same episode share it)
     * @param a the figure of the first model
     * @param b the figure of the second model
     */
    public record PairedRow(String cluster, double a, double b) {}

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
     * The mean of each column with its interval, transitions drawn one by one as if independent.
     *
     * @param columns metric values, {@code columns[m][i]} the value of metric m on transition i;
     *     every column as long as the others
     * @param key names the group resampled (e.g. a split and task type): groups get independent
     *     draws that stay the same from one model to the next, so models are compared on the same
     *     resampled transitions
     */
    public Interval[] means(final double[][] columns, final String key) {
        final int n = columns.length == 0 ? 0 : columns[0].length;
        final int[][] members = new int[n][];
        for (int i = 0; i < n; i++) {
            members[i] = new int[] {i};
        }
        return resample(columns, members, key);
    }

    /**
     * The mean of each column with its interval, clusters drawn whole: the interval of transitions
     * that are not independent, such as several steps of one episode. A replicate's mean is over
     * the transitions its clusters bring.
     *
     * @param columns metric values, {@code columns[m][i]} the value of metric m on transition i
     * @param clusters the cluster of each transition (e.g. its episode id)
     * @param key names the group resampled, as for {@link #means(double[][], String)}
     */
    public Interval[] means(
            final double[][] columns, final List<String> clusters, final String key) {
        return resample(columns, members(clusters), key);
    }

    /** The mean of one column with its interval, transitions drawn one by one. */
    public Interval mean(final double[] values, final String key) {
        return means(new double[][] {values}, key)[0];
    }

    /**
     * The mean difference {@code a - b} over paired rows with its interval, clusters drawn whole
     * with their rows: the two models' shared per-transition difficulty cancels row by row, and
     * correlated rows of one episode count as the one episode they are. NaN without rows.
     *
     * @param key names the comparison; the same seed and key give the same interval
     */
    public Interval pairedDifference(final List<PairedRow> rows, final String key) {
        final double[] differences = new double[rows.size()];
        final List<String> clusters = new ArrayList<>(rows.size());
        for (int i = 0; i < differences.length; i++) {
            differences[i] = rows.get(i).a() - rows.get(i).b();
            clusters.add(rows.get(i).cluster());
        }
        return means(new double[][] {differences}, clusters, key)[0];
    }

    /**
     * Pairs two models' rows on one held-out set by transition id, in the order of {@code a}'s
     * rows, clustered by episode.
     *
     * @param metric the figure compared, e.g. {@code TransitionScore::strict}
     * @throws IllegalArgumentException when the results are of different sets or did not score the
     *     same transitions
     */
    public static List<PairedRow> pair(
            final EvalReport.SetResult a,
            final EvalReport.SetResult b,
            final ToDoubleFunction<TransitionScore> metric) {
        if (!a.set().equals(b.set())) {
            throw new IllegalArgumentException(
                    "cannot pair results on "
                            + a.set()
                            + " with results on "
                            + b.set()
                            + "; pair two models' results on the same held-out set");
        }
        final Map<String, TransitionScore> other = new HashMap<>();
        for (final TransitionScore s : b.rows()) {
            other.put(s.transitionId(), s);
        }
        final List<PairedRow> out = new ArrayList<>(a.rows().size());
        for (final TransitionScore s : a.rows()) {
            final TransitionScore t = other.get(s.transitionId());
            if (t == null) {
                break;
            }
            out.add(new PairedRow(s.episodeId(), metric.applyAsDouble(s), metric.applyAsDouble(t)));
        }
        if (out.size() != a.rows().size() || out.size() != b.rows().size()) {
            throw new IllegalArgumentException(
                    String.format(
                            Locale.ROOT,
                            "cannot pair results on %s: one scored %d transitions, the other %d,"
                                    + " and %d of them are shared; pair models scored on the same"
                                    + " transitions (a prompt that does not fit a model's context"
                                    + " leaves its transition out)",
                            a.set(),
                            a.rows().size(),
                            b.rows().size(),
                            a.rows().stream()
                                    .filter(s -> other.containsKey(s.transitionId()))
                                    .count()));
        }
        return out;
    }

    /** The transitions of each cluster, clusters in the order they first appear. */
    private static int[][] members(final List<String> clusters) {
        final Map<String, List<Integer>> byCluster = new LinkedHashMap<>();
        for (int i = 0; i < clusters.size(); i++) {
            byCluster.computeIfAbsent(clusters.get(i), c -> new ArrayList<>()).add(i);
        }
        final int[][] out = new int[byCluster.size()][];
        int c = 0;
        for (final List<Integer> m : byCluster.values()) {
            out[c++] = m.stream().mapToInt(Integer::intValue).toArray();
        }
        return out;
    }

    private Interval[] resample(final double[][] columns, final int[][] members, final String key) {
        int n = 0;
        for (final int[] m : members) {
            n += m.length;
        }
        for (final double[] c : columns) {
            if (c.length != n) {
                throw new IllegalArgumentException(
                        "every metric needs one value per transition of the clusters");
            }
        }
        final Interval[] out = new Interval[columns.length];
        if (n == 0) {
            Arrays.fill(out, new Interval(Double.NaN, Double.NaN, Double.NaN));
            return out;
        }
        final double[][] replicates = new double[columns.length][resamples];
        final SplittableRandom random = new SplittableRandom(seed ^ fnv(key));
        final int[] draw = new int[members.length];
        for (int b = 0; b < resamples; b++) {
            int drawn = 0;
            for (int c = 0; c < draw.length; c++) {
                draw[c] = random.nextInt(members.length);
                drawn += members[draw[c]].length;
            }
            for (int m = 0; m < columns.length; m++) {
                double sum = 0;
                for (final int c : draw) {
                    for (final int i : members[c]) {
                        sum += columns[m][i];
                    }
                }
                replicates[m][b] = sum / drawn;
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
