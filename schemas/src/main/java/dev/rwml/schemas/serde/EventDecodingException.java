package dev.rwml.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * Bytes on a topic that cannot become an event: the one error stages route to the dead-letter
 * topic, with {@link #reason()} saying why and {@link #topic()} where the bytes came from.
 */
public final class EventDecodingException extends SerializationException {
    private static final long serialVersionUID = 1L;

    /** Why the bytes could not be decoded. */
    public enum Reason {
        /** Fewer bytes than the framing, or the Avro data ends early. */
        TRUNCATED,
        /** The first byte is not the Confluent magic byte 0: not written by a registry serde. */
        WRONG_MAGIC_BYTE,
        /** The schema id in the framing is not known to the registry. */
        UNKNOWN_SCHEMA_ID,
        /** The writer's schema cannot be read as the expected event type. */
        INCOMPATIBLE_SCHEMA,
        /** The Avro data does not match its writer schema. */
        UNDECODABLE_PAYLOAD,
        /** A string in the Avro data is not valid UTF-8. */
        INVALID_UTF8
    }

    private final Reason reason;
    private final String topic;

    public EventDecodingException(
            final Reason reason, final String topic, final String message, final Throwable cause) {
        super(
                "cannot decode a record from topic " + topic + " (" + reason + "): " + message,
                cause);
        this.reason = reason;
        this.topic = topic;
    }

    public EventDecodingException(final Reason reason, final String topic, final String message) {
        this(reason, topic, message, null);
    }

    public Reason reason() {
        return reason;
    }

    public String topic() {
        return topic;
    }
}
