package dev.rwml.reward.streams;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.runtime.errors.DeadLetterWriter;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a prediction group the stage cannot reward (late, or no transition within the window) into
 * a dead letter keyed by the original key bytes, with the dead-letter headers.
 *
 * @param <V> the incoming value type
 */
public final class ToDeadLetter<V> implements Processor<String, V, byte[], DeadLetter> {

    private static final Logger LOG = LoggerFactory.getLogger(ToDeadLetter.class);

    /** What a dead letter needs from an incoming value. */
    public interface Failure<V> {
        /** The prediction group that failed. */
        PredictionGroup group(V value);

        /** The source partition. */
        int partition(V value, int taskPartition);

        /** The source offset, or -1 when unknown. */
        long offset(V value);

        /** The error explaining why. */
        RuntimeException error(V value);
    }

    private final DeadLetterWriter writer;
    private final String predictionsTopic;
    private final Serializer<PredictionGroup> predictions;
    private final String reason;
    private final Failure<V> failure;
    private ProcessorContext<byte[], DeadLetter> context;

    /**
     * @param writer builds and counts the letters
     * @param predictionsTopic where prediction groups come from
     * @param predictions re-encodes a group to its bytes as they were on that topic
     * @param reason the reason header, e.g. {@code NO_TRANSITION_WITHIN_WINDOW}
     * @param failure reads the incoming value
     */
    public ToDeadLetter(
            final DeadLetterWriter writer,
            final String predictionsTopic,
            final Serializer<PredictionGroup> predictions,
            final String reason,
            final Failure<V> failure) {
        this.writer = writer;
        this.predictionsTopic = predictionsTopic;
        this.predictions = predictions;
        this.reason = reason;
        this.failure = failure;
    }

    @Override
    public void init(final ProcessorContext<byte[], DeadLetter> context) {
        this.context = context;
    }

    @Override
    public void process(final Record<String, V> record) {
        final V value = record.value();
        final int partition = failure.partition(value, context.taskId().partition());
        final long offset = failure.offset(value);
        final RuntimeException error = failure.error(value);
        LOG.warn(
                "dead-lettering prediction group {} from {}-{}@{}: {} ({})",
                record.key(),
                predictionsTopic,
                partition,
                offset,
                reason,
                error.getMessage());
        final ProducerRecord<byte[], DeadLetter> letter =
                writer.deadLetter(
                        new DeadLetterWriter.Source(
                                predictionsTopic,
                                partition,
                                offset,
                                record.key() == null
                                        ? null
                                        : record.key().getBytes(StandardCharsets.UTF_8),
                                predictions.serialize(predictionsTopic, failure.group(value)),
                                record.headers()),
                        error,
                        reason);
        context.forward(
                new Record<>(letter.key(), letter.value(), record.timestamp(), letter.headers()));
    }
}
