package dev.rwml.runtime.errors;

import dev.rwml.events.DeadLetter;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.streams.DeadLetterCounter;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.topics.TopicSpec;
import java.time.Clock;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The one way a stage turns a record it gave up on into the record for its run's dead-letter topic,
 * counted under the reason its header carries.
 */
public final class DeadLetterWriter {

    /**
     * The failed record as it was read, kept as bytes so that it can be sent again unchanged.
     *
     * @param topic the source topic
     * @param partition the source partition
     * @param offset the source offset, or -1 when unknown
     * @param key the original key bytes (may be null)
     * @param value the original value bytes (may be null)
     * @param headers the original headers (may be null)
     */
    public record Source(
            String topic, int partition, long offset, byte[] key, byte[] value, Headers headers) {

        /** The source of a record read by a byte-array consumer. */
        public static Source of(final ConsumerRecord<byte[], byte[]> record) {
            return new Source(
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    record.key(),
                    record.value(),
                    record.headers());
        }
    }

    private final StageName stage;
    private final TopicSpec<byte[], DeadLetter> topic;
    private final DeadLetterCounter counter;
    private final Clock clock;

    /**
     * @param stage the stage named on each letter
     * @param topic the run's dead-letter topic
     * @param counter counts each letter by reason and input topic
     * @param clock stamps {@code failedAt}
     */
    public DeadLetterWriter(
            final StageName stage,
            final TopicSpec<byte[], DeadLetter> topic,
            final DeadLetterCounter counter,
            final Clock clock) {
        this.stage = Objects.requireNonNull(stage, "stage");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.counter = Objects.requireNonNull(counter, "counter");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The dead-letter record of {@code source}, with the reason {@link DeadLetters#reasonOf}. */
    public ProducerRecord<byte[], DeadLetter> deadLetter(
            final Source source, final Throwable error) {
        return deadLetter(source, error, DeadLetters.reasonOf(error));
    }

    /**
     * The dead-letter record of {@code source} with the reason header {@code reason}, for a sink
     * that encodes it; counted.
     */
    public ProducerRecord<byte[], DeadLetter> deadLetter(
            final Source source, final Throwable error, final String reason) {
        final ProducerRecord<byte[], DeadLetter> record = letter(source, error, reason);
        counter.deadLetter(reason, source.topic());
        return record;
    }

    /**
     * The dead-letter record of {@code source} encoded by {@code letters}, for a byte-array
     * producer or a Streams handler; counted once encoded, so a letter whose encoding fails (the
     * registry is out) is not counted as sent.
     */
    public ProducerRecord<byte[], byte[]> encoded(
            final Source source,
            final Throwable error,
            final String reason,
            final Serializer<DeadLetter> letters) {
        final ProducerRecord<byte[], DeadLetter> record = letter(source, error, reason);
        final ProducerRecord<byte[], byte[]> out =
                new ProducerRecord<>(
                        record.topic(),
                        null,
                        record.key(),
                        letters.serialize(record.topic(), record.value()),
                        record.headers());
        counter.deadLetter(reason, source.topic());
        return out;
    }

    private ProducerRecord<byte[], DeadLetter> letter(
            final Source source, final Throwable error, final String reason) {
        final DeadLetter letter =
                DeadLetters.of(
                        stage.id(),
                        source.topic(),
                        source.partition(),
                        source.offset(),
                        source.key(),
                        source.value(),
                        source.headers(),
                        error,
                        clock.instant());
        return DeadLetters.toDeadLetterTopic(topic, letter, reason);
    }
}
