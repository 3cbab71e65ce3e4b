package dev.rwml.env.alfworld;

/** Deterministic 64-bit hashing of seeds and ids (SplitMix64's finaliser), stable across JVMs. */
final class Mix {
    private Mix() {}

    static long mix(final long... parts) {
        long h = 0x9E3779B97F4A7C15L;
        for (final long part : parts) {
            h = finalise(h ^ part) + 0x9E3779B97F4A7C15L;
        }
        return finalise(h);
    }

    private static long finalise(final long value) {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
