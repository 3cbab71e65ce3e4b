package dev.rwml.env.tau2;

/**
 * Seed partitioning of the desk splits: an episode seed maps to an even generator seed in {@code
 * train} and an odd one in {@code test}, so the two splits never share a database or task.
 */
public final class Splits {

    /** The training split. */
    public static final String TRAIN = "train";

    /** The held-out split. */
    public static final String TEST = "test";

    private Splits() {}

    /** The generator seed of an episode seed in a split. */
    public static long generatorSeed(final String split, final long seed) {
        return switch (split) {
            case TRAIN -> seed * 2;
            case TEST -> seed * 2 + 1;
            default ->
                    throw new IllegalArgumentException(
                            "unknown split '" + split + "': use 'train' or 'test'");
        };
    }
}
