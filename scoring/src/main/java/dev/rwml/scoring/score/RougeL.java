package dev.rwml.scoring.score;

import java.util.List;

/** ROUGE-L: the F1 of the longest common subsequence of two token lists. */
public final class RougeL {

    private RougeL() {}

    /** ROUGE-L F1 of a candidate against a reference; 1 when both are empty. */
    public static double f1(final List<String> candidate, final List<String> reference) {
        if (candidate.isEmpty() || reference.isEmpty()) {
            return candidate.isEmpty() && reference.isEmpty() ? 1.0 : 0.0;
        }
        final int lcs = lcsLength(candidate, reference);
        if (lcs == 0) {
            return 0.0;
        }
        final double precision = (double) lcs / candidate.size();
        final double recall = (double) lcs / reference.size();
        return 2 * precision * recall / (precision + recall);
    }

    /** Rounds to the nearest multiple of 0.2, as the paper scores tool outputs. */
    public static double roundToFifth(final double score) {
        return Math.round(score * 5) / 5.0;
    }

    static int lcsLength(final List<String> a, final List<String> b) {
        // Two rows are enough: each cell needs only the row above and the cell to its left.
        int[] previous = new int[b.size() + 1];
        int[] current = new int[b.size() + 1];
        for (int i = 1; i <= a.size(); i++) {
            final String token = a.get(i - 1);
            for (int j = 1; j <= b.size(); j++) {
                current[j] =
                        token.equals(b.get(j - 1))
                                ? previous[j - 1] + 1
                                : Math.max(previous[j], current[j - 1]);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.size()];
    }
}
