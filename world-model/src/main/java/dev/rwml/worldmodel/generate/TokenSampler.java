package dev.rwml.worldmodel.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws one token from a row of probabilities that the engine already normalised (softmax of the
 * logits over the temperature), so no exponential is computed in Java. Top-p sorts only the
 * candidates that can be in the nucleus: a token below {@code (1 - topP) / vocab} cannot, because
 * all such tokens together hold less than {@code 1 - topP}. Reuses its buffers: one per thread.
 */
final class TokenSampler {

    private final int vocab;
    private final long[] candidates;

    /** A sampler for rows of {@code vocab} probabilities. */
    TokenSampler(final int vocab) {
        this.vocab = vocab;
        this.candidates = new long[vocab];
    }

    /** The most likely token of the row at {@code offset} (lowest id on ties). */
    int argmax(final float[] row, final int offset) {
        int best = 0;
        for (int i = 1; i < vocab; i++) {
            if (row[offset + i] > row[offset + best]) {
                best = i;
            }
        }
        return best;
    }

    /**
     * Draws a token from the probabilities at {@code offset}, restricted to the smallest set of
     * most likely tokens whose mass reaches {@code topP} (ties ordered by id, so draws repeat).
     */
    int draw(
            final float[] probs,
            final int offset,
            final float topP,
            final SplittableRandom random) {
        if (topP >= 1f) {
            double total = 0;
            for (int i = 0; i < vocab; i++) {
                total += probs[offset + i];
            }
            double u = random.nextDouble() * total;
            for (int i = 0; i < vocab; i++) {
                u -= probs[offset + i];
                if (u < 0) {
                    return i;
                }
            }
            return argmax(probs, offset);
        }
        final float floor = (1f - topP) / vocab;
        int n = 0;
        double total = 0;
        for (int i = 0; i < vocab; i++) {
            final float p = probs[offset + i];
            total += p;
            if (p >= floor) {
                // descending probability, then ascending id, as one ascending long sort
                candidates[n++] = ((long) ~Float.floatToIntBits(p) << 32) | i;
            }
        }
        Arrays.sort(candidates, 0, n);
        double kept = 0;
        int last = n - 1;
        for (int k = 0; k < n; k++) {
            kept += probs[offset + (int) candidates[k]];
            if (kept >= topP * total) {
                last = k;
                break;
            }
        }
        double u = random.nextDouble() * kept;
        for (int k = 0; k <= last; k++) {
            u -= probs[offset + (int) candidates[k]];
            if (u < 0) {
                return (int) candidates[k];
            }
        }
        return (int) candidates[last];
    }
}
