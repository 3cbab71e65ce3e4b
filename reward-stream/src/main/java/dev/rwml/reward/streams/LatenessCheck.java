package dev.rwml.reward.streams;

import dev.rwml.reward.RewardMetrics;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Marks records whose join window and grace had already closed in stream time when they arrived,
 * and counts them, so none is lost without a trace.
 *
 * @param <V> the value type
 */
public final class LatenessCheck<V> implements FixedKeyProcessor<String, V, Timed<V>> {

    private final String stream;
    private final long allowedMs;
    private final RewardMetrics metrics;
    private FixedKeyProcessorContext<String, Timed<V>> context;

    /**
     * @param stream the stream's name in metrics ({@code predictions}, {@code transitions})
     * @param allowedMs how far behind stream time a record may be: the window's after-part plus
     *     grace
     * @param metrics counts late records
     */
    public LatenessCheck(final String stream, final long allowedMs, final RewardMetrics metrics) {
        this.stream = stream;
        this.allowedMs = allowedMs;
        this.metrics = metrics;
    }

    @Override
    public void init(final FixedKeyProcessorContext<String, Timed<V>> context) {
        this.context = context;
    }

    @Override
    public void process(final FixedKeyRecord<String, V> record) {
        // The join would drop either silently; the processing handler dead-letters them instead.
        if (record.value() == null) {
            throw new IllegalArgumentException(
                    "value on the " + stream + " input is null (a tombstone), not an event");
        }
        if (record.key() == null) {
            throw new IllegalArgumentException(
                    "record on the "
                            + stream
                            + " input has no key; it must be keyed by its transitionId to join");
        }
        final boolean late = context.currentStreamTimeMs() - record.timestamp() > allowedMs;
        if (late) {
            metrics.late(stream);
        }
        final RecordMetadata source = context.recordMetadata().orElse(null);
        context.forward(
                record.withValue(
                        new Timed<>(
                                record.value(),
                                late,
                                source == null ? context.taskId().partition() : source.partition(),
                                source == null ? -1 : source.offset())));
    }
}
