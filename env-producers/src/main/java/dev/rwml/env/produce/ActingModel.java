package dev.rwml.env.produce;

import dev.rwml.worldmodel.serve.ModelLoader;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * The model a producer's agents act with instead of a scripted policy: the newest version of a run,
 * followed on the run's models topic and swapped in while they act, as the prediction stage does.
 *
 * @param run the run whose versions act
 * @param loader turns a published version into a model (in process, or an inference server with the
 *     version loaded here for its tokenizer and prompts)
 * @param sampling how an action is sampled (group size 1, which the agent checks)
 * @param maxPromptTokens the longest acting prompt
 * @param firstVersion how long to wait for the run's first version before giving up
 * @param episodesPerGame G, the episodes each game is played: a group whose returns give each
 *     episode its advantage (1: every episode its own game, advantage 0)
 */
public record ActingModel(
        String run,
        ModelLoader loader,
        SamplingSettings sampling,
        int maxPromptTokens,
        Duration firstVersion,
        int episodesPerGame) {

    public ActingModel {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(loader, "loader");
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(firstVersion, "firstVersion");
        if (episodesPerGame < 1) {
            throw new IllegalArgumentException(
                    "episodes per game must be at least 1, got " + episodesPerGame);
        }
    }
}
