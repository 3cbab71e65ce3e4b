package dev.rwml.scoring.group;

/**
 * Whether a rewarded group goes to the trainer, and why; the reason is written to the event and
 * counted by the metrics.
 *
 * @param kept true when the trainer should use the group
 * @param reason one of {@code informative}, {@code easy-sampled}, {@code easy-dropped}, {@code
 *     hard-kept}, {@code hard-dropped}
 */
public record KeepDecision(boolean kept, String reason) {

    /** A mixed group, always kept. */
    public static final KeepDecision INFORMATIVE = new KeepDecision(true, "informative");

    /** A too-easy group that won the draw. */
    public static final KeepDecision EASY_SAMPLED = new KeepDecision(true, "easy-sampled");

    /** A too-easy group that lost the draw. */
    public static final KeepDecision EASY_DROPPED = new KeepDecision(false, "easy-dropped");

    /** A group no sample passed, kept by option. */
    public static final KeepDecision HARD_KEPT = new KeepDecision(true, "hard-kept");

    /** A group no sample passed, dropped by option. */
    public static final KeepDecision HARD_DROPPED = new KeepDecision(false, "hard-dropped");
}
