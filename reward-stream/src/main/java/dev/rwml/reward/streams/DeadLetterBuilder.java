package dev.rwml.reward.streams;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.reward.RewardMetrics;
import dev.rwml.runtime.StageName;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.topics.TopicSpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Builds the dead letter of a prediction group the stage gave up on, keeping the group's bytes as
 * they were on the predictions topic so it can be sent again.
 */
public final class DeadLetterBuilder {

    private final String predictionsTopic;
    private final Serializer<PredictionGroup> predictions;
    private final TopicSpec<byte[], DeadLetter> deadLetterTopic;
    private final RewardMetrics metrics;
    private final Clock clock;

    /**
     * @param predictionsTopic where prediction groups come from
     * @param predictions re-encodes a group to its original bytes
     * @param deadLetterTopic the run's dead-letter topic
     * @param metrics counts dead letters by reason
     * @param clock stamps {@code failedAt}
     */
    public DeadLetterBuilder(
            final String predictionsTopic,
            final Serializer<PredictionGroup> predictions,
            final TopicSpec<byte[], DeadLetter> deadLetterTopic,
            final RewardMetrics metrics,
            final Clock clock) {
        this.predictionsTopic = predictionsTopic;
        this.predictions = predictions;
        this.deadLetterTopic = deadLetterTopic;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The dead-letter record of a prediction group, with the helper's headers and a reason. */
    public ProducerRecord<byte[], DeadLetter> of(
            final String key,
            final PredictionGroup group,
            final int partition,
            final long offset,
            final Headers headers,
            final Throwable error,
            final String reason) {
        final DeadLetter letter =
                DeadLetters.of(
                        StageName.REWARD.id(),
                        predictionsTopic,
                        partition,
                        offset,
                        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                        predictions.serialize(predictionsTopic, group),
                        headers,
                        error,
                        clock.instant());
        metrics.deadLetter(reason);
        return DeadLetters.toDeadLetterTopic(deadLetterTopic, letter, reason);
    }

    /** The run's dead-letter topic. */
    public TopicSpec<byte[], DeadLetter> topic() {
        return deadLetterTopic;
    }

    /** The topic prediction groups come from. */
    public String predictionsTopic() {
        return predictionsTopic;
    }
}
