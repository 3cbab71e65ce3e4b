package dev.rwml.env.alfworld;

/**
 * The two command grammars of ALFWorld releases, which differ in the place command and arrivals.
 */
public enum Grammar {
    /** Current release: {@code move X to Y} and {@code You arrive at cabinet 1.}. */
    CURRENT,
    /** Older release, seen in earlier recorded data: {@code put X in/on Y} and {@code loc N}. */
    OLDER
}
