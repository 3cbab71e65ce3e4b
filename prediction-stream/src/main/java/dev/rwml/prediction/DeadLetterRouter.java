package dev.rwml.prediction;

import dev.rwml.events.DeadLetter;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.runtime.streams.DeadLetterCounter;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.topics.TopicSpec;
import java.time.Clock;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a record the prediction stage cannot use into the record for the run's dead-letter topic,
 * built by the schemas module's {@link DeadLetters} (original bytes, source, reason headers), and
 * counts it under the same reason.
 */
final class DeadLetterRouter {

    private final TopicSpec<byte[], DeadLetter> topic;
    private final DeadLetterCounter counter;
    private final Clock clock;

    DeadLetterRouter(
            final TopicSpec<byte[], DeadLetter> topic,
            final DeadLetterCounter counter,
            final Clock clock) {
        this.topic = topic;
        this.counter = counter;
        this.clock = clock;
    }

    /**
     * Whether a decoding failure is the data's fault (dead-letter the record) rather than the
     * environment's, such as an unreachable registry or one that refuses the credentials (fail, and
     * retry after the restart).
     */
    static boolean isPoison(final RuntimeException e) {
        return e instanceof EventDecodingException
                && ErrorPolicy.classify(e) == ErrorPolicy.Action.DEAD_LETTER;
    }

    /** The dead-letter record of {@code record}, keyed by its original key bytes; counted. */
    Record<byte[], DeadLetter> deadLetter(final BufferedRecord record, final Throwable error) {
        final DeadLetter letter =
                DeadLetters.of(
                        StageName.PREDICTION.id(),
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.key(),
                        record.value(),
                        record.kafkaHeaders(),
                        error,
                        clock.instant());
        final String reason = DeadLetters.reasonOf(error);
        counter.deadLetter(reason);
        final ProducerRecord<byte[], DeadLetter> out =
                DeadLetters.toDeadLetterTopic(topic, letter, reason);
        return new Record<>(out.key(), out.value(), record.timestamp(), out.headers());
    }
}
