package dev.rwml.schemas.serde;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.io.Decoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.util.Utf8;

/**
 * A reader of the events (whose strings are Java {@code String}s) that refuses a string that is not
 * valid UTF-8. Avro's own reader replaces each bad byte sequence with U+FFFD, so a producer's
 * encoding bug would reach the world model as silently changed text.
 */
final class StrictUtf8Reader<T> extends SpecificDatumReader<T> {

    StrictUtf8Reader(final Schema writer, final Schema reader, final SpecificData model) {
        super(writer, reader, model);
    }

    /** An Avro string that is not UTF-8: the bytes and where they went wrong. */
    static final class InvalidUtf8Exception extends IOException {
        private static final long serialVersionUID = 1L;

        InvalidUtf8Exception(final String message) {
            super(message);
        }
    }

    @Override
    protected Object readString(final Object old, final Schema expected, final Decoder in)
            throws IOException {
        // Utf8 holds the string's bytes as they were written, not yet decoded
        final Utf8 raw = in.readString(null);
        final ByteBuffer bytes = ByteBuffer.wrap(raw.getBytes(), 0, raw.getByteLength());
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes.duplicate())
                    .toString();
        } catch (final CharacterCodingException e) {
            throw new InvalidUtf8Exception(
                    "a string of "
                            + bytes.remaining()
                            + " bytes that is not valid UTF-8 ("
                            + e.getMessage()
                            + "); write text as UTF-8");
        }
    }
}
