package dev.rwml.prediction;

import dev.rwml.events.DeadLetter;
import dev.rwml.schemas.serde.EventDecodingException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.header.Header;

/** Turns a record the prediction stage cannot use into a {@link DeadLetter} with its reason. */
final class DeadLetterRouter {

    /** The stage name dead letters carry. */
    static final String STAGE = "prediction";

    private final Clock clock;

    DeadLetterRouter(final Clock clock) {
        this.clock = clock;
    }

    /**
     * Whether an exception is the data's fault (dead-letter the record) rather than the
     * environment's (registry down: fail and retry).
     */
    static boolean isPoison(final RuntimeException e) {
        return e instanceof EventDecodingException;
    }

    DeadLetter deadLetter(
            final BufferedRecord record, final String errorClass, final String message) {
        final Map<String, ByteBuffer> headers = new LinkedHashMap<>();
        for (final Header header : record.headers()) {
            headers.put(
                    header.key(),
                    ByteBuffer.wrap(header.value() == null ? new byte[0] : header.value()));
        }
        return DeadLetter.newBuilder()
                .setStage(STAGE)
                .setErrorClass(errorClass)
                .setErrorMessage(message)
                .setSourceTopic(record.topic())
                .setSourcePartition(record.partition())
                .setSourceOffset(record.offset())
                .setOriginalKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
                .setOriginalValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
                .setOriginalHeaders(headers)
                .setFailedAt(Instant.ofEpochMilli(clock.millis()))
                .build();
    }
}
