package dev.rwml.env.recorded;

import dev.rwml.env.Environment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Plays a recorded episode back as an {@link Environment}, so the {@link
 * dev.rwml.env.EpisodeRunner} builds imported transitions exactly as it builds live ones (same
 * history window, same fields). Its expert action is the recorded one.
 */
final class ReplayEnvironment implements Environment {

    private final RecordedEpisode episode;
    private int next;

    ReplayEnvironment(final RecordedEpisode episode) {
        this.episode = episode;
    }

    @Override
    public String name() {
        return episode.env();
    }

    @Override
    public String task() {
        return episode.task();
    }

    @Override
    public String observation() {
        return next == 0
                ? episode.initialObservation()
                : episode.steps().get(next - 1).observation();
    }

    /** A recorded episode has only the recorded actions. */
    @Override
    public String inadmissibleAction(final RandomGenerator rng) {
        throw new UnsupportedOperationException(
                "a recorded episode cannot make up actions; it replays the recorded ones");
    }

    @Override
    public List<String> admissibleActions() {
        return done() ? List.of() : current().admissibleActions().orElse(List.of());
    }

    @Override
    public Optional<String> expertAction() {
        return done() ? Optional.empty() : Optional.of(current().action());
    }

    @Override
    public Step step(final String action) {
        if (done()) {
            throw new IllegalStateException(
                    "episode " + episode.episodeId() + " has no step left to replay");
        }
        final RecordedStep step = current();
        if (!step.action().equals(action)) {
            throw new IllegalStateException(
                    "replay of "
                            + episode.episodeId()
                            + " expected the recorded action \""
                            + step.action()
                            + "\", got \""
                            + action
                            + "\"");
        }
        next++;
        return new Step(step.observation(), step.kind(), step.reward(), step.done(), step.valid());
    }

    @Override
    public boolean done() {
        return next >= episode.steps().size();
    }

    @Override
    public Map<String, String> metadata() {
        return episode.metadata();
    }

    private RecordedStep current() {
        return episode.steps().get(next);
    }
}
