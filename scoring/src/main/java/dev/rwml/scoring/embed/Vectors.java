package dev.rwml.scoring.embed;

/** Vector arithmetic the reward needs. */
public final class Vectors {

    private Vectors() {}

    /**
     * Cosine similarity of two vectors of the same length; 0 when either is all zeros.
     *
     * @throws IllegalArgumentException when the lengths differ
     */
    public static double cosine(final float[] a, final float[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException(
                    "vectors of different dimensions: " + a.length + " vs " + b.length);
        }
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        if (na == 0 || nb == 0) {
            return 0;
        }
        return dot / (Math.sqrt(na) * Math.sqrt(nb));
    }
}
