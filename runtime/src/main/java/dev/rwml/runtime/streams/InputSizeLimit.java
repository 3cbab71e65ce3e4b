package dev.rwml.runtime.streams;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Refuses input values too large for the stage's join store, so they are dead-lettered with the
 * reason by the deserialization handler. Before, a 10 MB transition was stored, its changelog write
 * exceeded the producer's request limit, and the replaced stream thread failed on the same record
 * again and again.
 */
public final class InputSizeLimit {

    /**
     * The largest value the stage reads: a joined record must fit the join store's changelog, whose
     * producer sends at most 1 MiB per request by default.
     */
    public static final int MAX_VALUE_BYTES = 512 * 1024;

    private InputSizeLimit() {}

    /** {@code serde} whose deserializer refuses values over {@link #MAX_VALUE_BYTES}. */
    public static <T> Serde<T> limited(final Serde<T> serde) {
        final Deserializer<T> inner = serde.deserializer();
        return Serdes.serdeFrom(
                serde.serializer(),
                new Deserializer<>() {
                    @Override
                    public T deserialize(final String topic, final byte[] data) {
                        check(topic, data);
                        return inner.deserialize(topic, data);
                    }

                    @Override
                    public T deserialize(
                            final String topic, final Headers headers, final byte[] data) {
                        check(topic, data);
                        return inner.deserialize(topic, headers, data);
                    }

                    @Override
                    public void close() {
                        inner.close();
                    }
                });
    }

    private static void check(final String topic, final byte[] data) {
        if (data != null && data.length > MAX_VALUE_BYTES) {
            throw new OversizedRecordException(
                    "value on "
                            + topic
                            + " has "
                            + data.length
                            + " bytes, more than the "
                            + MAX_VALUE_BYTES
                            + " the stage reads (a record it keeps must fit its store's"
                            + " changelog, and a prompt of that size fits no model's context);"
                            + " shorten the texts where the record is produced");
        }
    }

    /** A value too large for the stage: the record's fault, dead-lettered. */
    public static final class OversizedRecordException extends SerializationException {
        private static final long serialVersionUID = 1L;

        OversizedRecordException(final String message) {
            super(message);
        }
    }
}
