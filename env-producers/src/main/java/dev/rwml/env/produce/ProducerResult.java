package dev.rwml.env.produce;

import dev.rwml.env.EpisodeRunner;
import dev.rwml.events.Transition;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What a producer run published.
 *
 * @param episodes episodes whose transitions were all sent
 * @param transitions transitions the broker acknowledged
 * @param sendErrors transitions that failed after the client's retries
 * @param elapsed wall time of the run, flush included
 * @param stopped true when the run was stopped before all its episodes
 * @param outcomes what the agents achieved in the episodes sent
 * @param publishedBefore episodes skipped because an earlier run of the same command published them
 *     (a run's model only: its episodes are published exactly once)
 */
public record ProducerResult(
        long episodes,
        long transitions,
        long sendErrors,
        Duration elapsed,
        boolean stopped,
        Outcomes outcomes,
        long publishedBefore) {

    /**
     * What the agents achieved in the episodes sent.
     *
     * @param successes episodes with a positive reward (the task completed)
     * @param steps steps taken
     * @param invalidSteps steps whose action did nothing or was refused (ALFWorld's {@code Nothing
     *     happens.}, a tau2 {@code Error:}), unreadable answers included
     * @param unreadableAnswers steps whose model answer held no action
     */
    public record Outcomes(long successes, long steps, long invalidSteps, long unreadableAnswers) {

        /** No episode yet. */
        public static final Outcomes NONE = new Outcomes(0, 0, 0, 0);

        /** These outcomes and one more episode's. */
        public Outcomes plus(final List<Transition> episode) {
            final boolean success = episode.stream().anyMatch(t -> t.getEnvReward() > 0);
            final long invalid = episode.stream().filter(t -> !t.getActionValid()).count();
            final long unreadable =
                    episode.stream()
                            .filter(t -> t.getMetadata().containsKey(EpisodeRunner.INVALID_ANSWER))
                            .count();
            return new Outcomes(
                    successes + (success ? 1 : 0),
                    steps + episode.size(),
                    invalidSteps + invalid,
                    unreadableAnswers + unreadable);
        }
    }

    /** Acknowledged transitions per second of wall time. */
    public double transitionsPerSecond() {
        final double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? 0 : transitions / seconds;
    }

    /** A one-line summary for people. */
    public String summary() {
        return String.format(
                        Locale.ROOT,
                        "%s %d episodes, %d transitions in %.1f s (%.1f transitions/s), %d send errors;"
                                + " %d of %d episodes succeeded, %d of %d steps invalid%s",
                        stopped ? "stopped after" : "published",
                        episodes,
                        transitions,
                        elapsed.toNanos() / 1e9,
                        transitionsPerSecond(),
                        sendErrors,
                        outcomes.successes(),
                        episodes,
                        outcomes.invalidSteps(),
                        outcomes.steps(),
                        outcomes.unreadableAnswers() == 0
                                ? ""
                                : " (" + outcomes.unreadableAnswers() + " answers held no action)")
                + (publishedBefore == 0
                        ? ""
                        : "; "
                                + publishedBefore
                                + " episodes were already published by an earlier run of this"
                                + " command");
    }
}
