package dev.rwml.schemas.deadletter;

import dev.rwml.events.DeadLetter;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.topics.TopicSpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Builds {@link DeadLetter} records for input a stage cannot process (keeping the original bytes
 * and where they came from), and turns them back into the original record to send it again once the
 * cause is fixed.
 */
public final class DeadLetters {
    /** Header on a dead-letter record: the stage that gave up. */
    public static final String STAGE_HEADER = "rwml.dlq.stage";

    /** Header on a dead-letter record: the error class. */
    public static final String ERROR_CLASS_HEADER = "rwml.dlq.error.class";

    /** Header on a dead-letter record: the decoding reason, or PROCESSING. */
    public static final String REASON_HEADER = "rwml.dlq.reason";

    /** Header on a dead-letter record: {@code topic/partition/offset} of the original. */
    public static final String SOURCE_HEADER = "rwml.dlq.source";

    /** The reason of failures that are not decoding errors. */
    public static final String PROCESSING = "PROCESSING";

    /**
     * The reason of a model version a stage's follower rejected (its artifact does not verify or
     * does not load); the letter holds the version's manifest. Sending it again publishes the same
     * broken version again: publish a new version instead.
     */
    public static final String MODEL_REJECTED = "MODEL_REJECTED";

    private static final int MAX_MESSAGE_CHARS = 4000;

    private DeadLetters() {}

    /** The dead letter of a consumed record that {@code stage} failed on. */
    public static DeadLetter of(
            final String stage,
            final ConsumerRecord<byte[], byte[]> record,
            final Throwable error,
            final Instant failedAt) {
        return of(
                stage,
                record.topic(),
                record.partition(),
                record.offset(),
                record.key(),
                record.value(),
                record.headers(),
                error,
                failedAt);
    }

    /** The dead letter of a record given by its parts (for Streams handlers and processors). */
    public static DeadLetter of(
            final String stage,
            final String sourceTopic,
            final int sourcePartition,
            final long sourceOffset,
            final byte[] key,
            final byte[] value,
            final Headers headers,
            final Throwable error,
            final Instant failedAt) {
        final Map<String, ByteBuffer> originalHeaders = new HashMap<>();
        if (headers != null) {
            for (final Header header : headers) {
                // Avro maps hold one value per name; the last one wins, as in Headers.lastHeader.
                originalHeaders.put(
                        header.key(),
                        ByteBuffer.wrap(header.value() == null ? new byte[0] : header.value()));
            }
        }
        return DeadLetter.newBuilder()
                .setStage(stage)
                .setErrorClass(error.getClass().getName())
                .setErrorMessage(message(error))
                .setSourceTopic(sourceTopic)
                .setSourcePartition(sourcePartition)
                .setSourceOffset(sourceOffset)
                .setOriginalKey(key == null ? null : ByteBuffer.wrap(key))
                .setOriginalValue(value == null ? null : ByteBuffer.wrap(value))
                .setOriginalHeaders(originalHeaders)
                .setFailedAt(failedAt)
                .build();
    }

    /** The reason of a failure: the decoding reason, or {@link #PROCESSING}. */
    public static String reasonOf(final Throwable error) {
        Throwable cause = error;
        while (cause != null) {
            if (cause instanceof EventDecodingException decoding) {
                return decoding.reason().name();
            }
            cause = cause.getCause();
        }
        return PROCESSING;
    }

    /**
     * Dead letters keep at most this much of the original value: one carrying a whole 10 MB record
     * would exceed the producer's default 1 MiB request limit and fail the stage's transaction, on
     * the same record after every restart.
     */
    public static final int MAX_ORIGINAL_VALUE_BYTES = 256 * 1024;

    /** {@code letter} with its original value cut to {@link #MAX_ORIGINAL_VALUE_BYTES}, said so. */
    private static DeadLetter capped(final DeadLetter letter) {
        final ByteBuffer value = letter.getOriginalValue();
        if (value == null || value.remaining() <= MAX_ORIGINAL_VALUE_BYTES) {
            return letter;
        }
        final int size = value.remaining();
        final byte[] head = new byte[MAX_ORIGINAL_VALUE_BYTES];
        value.duplicate().get(head);
        letter.setOriginalValue(ByteBuffer.wrap(head));
        letter.setErrorMessage(
                letter.getErrorMessage()
                        + " [the original value has "
                        + size
                        + " bytes; this dead letter keeps the first "
                        + MAX_ORIGINAL_VALUE_BYTES
                        + "]");
        return letter;
    }

    /**
     * The record to publish on a dead-letter topic: keyed by the original key, with headers naming
     * the stage, error class, reason and source so tools can filter without decoding.
     */
    public static ProducerRecord<byte[], DeadLetter> toDeadLetterTopic(
            final TopicSpec<byte[], DeadLetter> topic,
            final DeadLetter deadLetter,
            final String reason) {
        final DeadLetter letter = capped(deadLetter);
        final Headers headers = new RecordHeaders();
        headers.add(STAGE_HEADER, utf8(letter.getStage()));
        headers.add(ERROR_CLASS_HEADER, utf8(letter.getErrorClass()));
        headers.add(REASON_HEADER, utf8(reason));
        headers.add(
                SOURCE_HEADER,
                utf8(
                        letter.getSourceTopic()
                                + "/"
                                + letter.getSourcePartition()
                                + "/"
                                + letter.getSourceOffset()));
        return new ProducerRecord<>(
                topic.name(), null, bytes(letter.getOriginalKey()), letter, headers);
    }

    /** The original record, to send back to its source topic with its key, value and headers. */
    public static ProducerRecord<byte[], byte[]> redrive(final DeadLetter letter) {
        final Headers headers = new RecordHeaders();
        letter.getOriginalHeaders().forEach((name, value) -> headers.add(name, bytes(value)));
        return new ProducerRecord<>(
                letter.getSourceTopic(),
                null,
                bytes(letter.getOriginalKey()),
                bytes(letter.getOriginalValue()),
                headers);
    }

    /** Sends the original record back to its source topic through a byte-array producer. */
    public static Future<RecordMetadata> redrive(
            final Producer<byte[], byte[]> producer, final DeadLetter letter) {
        return producer.send(redrive(letter));
    }

    private static String message(final Throwable error) {
        final StringBuilder text =
                new StringBuilder(
                        error.getMessage() == null
                                ? error.getClass().getSimpleName()
                                : error.getMessage());
        Throwable cause = error.getCause();
        // The root cause often says more than the wrapper ("Found string, expecting int").
        while (cause != null && cause != cause.getCause()) {
            text.append(" <- ").append(cause.getClass().getSimpleName());
            if (cause.getMessage() != null) {
                text.append(": ").append(cause.getMessage());
            }
            cause = cause.getCause();
        }
        return text.length() > MAX_MESSAGE_CHARS
                ? text.substring(0, MAX_MESSAGE_CHARS) + "..."
                : text.toString();
    }

    private static byte[] utf8(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        final ByteBuffer view = buffer.duplicate();
        final byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }
}
