package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.Masks;

/** Logits of one sequence through an {@link HfDecoder}, in one pass or token by token. */
final class LogitChecks {

    private LogitChecks() {}

    /** (steps x vocab) row-major, one forward pass with a causal mask: {@link PrefixLogits}. */
    static float[] full(final HfDecoder model, final NDManager step, final int[] ids) {
        return PrefixLogits.of(model, step, toLong(ids));
    }

    /** The same through the KV cache: the first {@code prefix} tokens at once, then one a step. */
    static float[] incremental(
            final HfDecoder model, final NDManager step, final int[] ids, final int prefix) {
        final int n = ids.length;
        final int vocab = model.config().vocabSize();
        final float[] all = new float[n * vocab];
        try (KvCache cache = model.newCache(step, 1, n)) {
            final long[] head = new long[prefix];
            for (int i = 0; i < prefix; i++) {
                head[i] = ids[i];
            }
            final NDArray first =
                    model.forward(
                            step.create(head, new Shape(1, prefix)),
                            step.create(positions(0, prefix), new Shape(1, prefix)),
                            Masks.causal(step, prefix),
                            cache);
            System.arraycopy(first.toFloatArray(), 0, all, 0, prefix * vocab);
            for (int t = prefix; t < n; t++) {
                final NDArray out =
                        model.forward(
                                step.create(new long[] {ids[t]}, new Shape(1, 1)),
                                step.create(new long[] {t}, new Shape(1, 1)),
                                null,
                                cache);
                System.arraycopy(out.toFloatArray(), 0, all, t * vocab, vocab);
            }
        }
        return all;
    }

    /** The largest |actual - expected| over all positions. */
    static double maxAbsDiff(final float[] actual, final double[][] expected) {
        final int vocab = expected[0].length;
        if (actual.length != expected.length * vocab) {
            throw new AssertionError(
                    "got " + actual.length + " logits, expected " + expected.length * vocab);
        }
        double max = 0;
        for (int t = 0; t < expected.length; t++) {
            for (int v = 0; v < vocab; v++) {
                max = Math.max(max, Math.abs(actual[t * vocab + v] - expected[t][v]));
            }
        }
        return max;
    }

    private static long[] positions(final int from, final int to) {
        final long[] p = new long[to - from];
        for (int i = 0; i < p.length; i++) {
            p[i] = from + i;
        }
        return p;
    }

    private static long[] toLong(final int[] ids) {
        final long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = ids[i];
        }
        return out;
    }
}
