package dev.rwml.env.imports;

import dev.rwml.env.StableMaps;
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
}
