package dev.rwml.schemas.topics;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Rollout;
import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import java.util.List;

/**
 * The topics of one run, all named {@code rwml.<run>.*}.
 *
 * @param run the run
 * @param predictions prediction groups, key transitionId, co-partitioned with transitions
 * @param rewards rewarded groups, key transitionId, co-partitioned with transitions
 * @param curriculum the transitions the filter stage passed on to G-sampling, key transitionId
 * @param difficulty the filter stage's verdict on every transition it judged, key transitionId
 * @param models model version manifests, key the version as a decimal string, all kept
 * @param modelChunks artifact pieces, key {@code <version>/<index>}, large messages
 * @param deadLetters records the run's stages could not process, key the original key bytes
 * @param rollouts the episodes the run's model acted, key {@code <env>/<episodeId>}, kept forever
 */
public record RunTopics(
        RunName run,
        TopicSpec<String, PredictionGroup> predictions,
        TopicSpec<String, RewardedGroup> rewards,
        TopicSpec<String, Transition> curriculum,
        TopicSpec<String, TransitionDifficulty> difficulty,
        TopicSpec<String, ModelVersion> models,
        TopicSpec<String, ModelChunk> modelChunks,
        TopicSpec<byte[], DeadLetter> deadLetters,
        TopicSpec<String, Rollout> rollouts) {

    /** Every topic of the run. */
    public List<TopicSpec<?, ?>> all() {
        return List.of(
                predictions,
                rewards,
                curriculum,
                difficulty,
                models,
                modelChunks,
                deadLetters,
                rollouts);
    }
}
