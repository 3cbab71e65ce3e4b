package dev.rwml.env.recorded;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.StableMaps;
import dev.rwml.events.Transition;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One recorded trajectory, as read from a line of a JSONL file ({@link TrajectoryParser}).
 *
 * @param lineNumber the 1-based line it came from
 * @param env the environment name, e.g. {@code alfworld}
 * @param envVersion the environment's version, {@code recorded} when the file does not say
 * @param split the data split
 * @param episodeId the episode id; transition ids are {@code <env>/<episodeId>/<step>}
 * @param task the task text
 * @param initialObservation s_0
 * @param policy the policy name recorded on transitions
 * @param agentId the agent id recorded on transitions
 * @param steps the steps in order, at least one
 * @param metadata facts copied onto every transition
 */
public record RecordedEpisode(
        int lineNumber,
        String env,
        String envVersion,
        String split,
        String episodeId,
        String task,
        String initialObservation,
        String policy,
        String agentId,
        List<RecordedStep> steps,
        Map<String, String> metadata) {

    public RecordedEpisode {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(envVersion, "envVersion");
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(episodeId, "episodeId");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(initialObservation, "initialObservation");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(agentId, "agentId");
        steps = List.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("an episode needs at least one step");
        }
        metadata = StableMaps.ordered(metadata);
    }

    /**
     * The transitions of this episode, built by the {@link EpisodeRunner} with H = {@code
     * historyTurns} and event times from {@code clock}.
     */
    public List<Transition> transitions(final int historyTurns, final Clock clock) {
        final EnvironmentSource source =
                new EnvironmentSource(
                        env(), envVersion(), split(), seed -> new ReplayEnvironment(this));
        final EpisodeRunner runner = new EpisodeRunner(historyTurns, steps.size(), clock);
        // The seed and episode number only shape the runner's own ids, replaced below.
        final List<Transition> replayed =
                runner.run(source, new ReplayAgent(policy()), agentId(), 0, 0);
        final List<Transition> out = new ArrayList<>(replayed.size());
        for (final Transition t : replayed) {
            final RecordedStep step = steps.get(t.getStep());
            out.add(
                    Transition.newBuilder(t)
                            .setEpisodeId(episodeId())
                            .setTransitionId(env() + "/" + episodeId() + "/" + t.getStep())
                            .setAdmissibleActions(step.admissibleActions().orElse(null))
                            .build());
        }
        return out;
    }
}
