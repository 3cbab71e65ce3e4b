package dev.rwml.schemas.topics;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import java.util.List;

/**
 * The topics of one run, all named {@code rwml.<run>.*}.
 *
 * @param run the run
 * @param predictions prediction groups, key transitionId, co-partitioned with transitions
 * @param rewards rewarded groups, key transitionId, co-partitioned with transitions
 * @param models model version manifests, key the version as a decimal string, all kept
 * @param modelChunks artifact pieces, key {@code <version>/<index>}, large messages
 * @param deadLetters records the run's stages could not process, key the original key bytes
 */
public record RunTopics(
        RunName run,
        TopicSpec<String, PredictionGroup> predictions,
        TopicSpec<String, RewardedGroup> rewards,
        TopicSpec<String, ModelVersion> models,
        TopicSpec<String, ModelChunk> modelChunks,
        TopicSpec<byte[], DeadLetter> deadLetters) {

    /** Every topic of the run. */
    public List<TopicSpec<?, ?>> all() {
        return List.of(predictions, rewards, models, modelChunks, deadLetters);
    }
}
