package dev.rwml.pipeline.deadletters;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A one-line, printable preview of a record's bytes: names the Confluent framing (magic byte 0 and
 * schema id) when present, shows text as text and anything else as hex, so a terminal is never fed
 * raw binary.
 */
public final class PayloadPreview {

    private static final int FRAME_BYTES = 5;

    private PayloadPreview() {}

    /** The preview of {@code bytes}, at most about {@code maxChars} characters of content. */
    public static String of(final byte[] bytes, final int maxChars) {
        if (bytes == null || bytes.length == 0) {
            return "(empty)";
        }
        if (bytes.length > FRAME_BYTES && bytes[0] == 0) {
            final int schemaId = ByteBuffer.wrap(bytes, 1, 4).getInt();
            return "avro schema "
                    + schemaId
                    + ", "
                    + bytes.length
                    + " bytes: "
                    + printable(bytes, FRAME_BYTES, maxChars);
        }
        if (mostlyText(bytes)) {
            return bytes.length + " bytes: \"" + printable(bytes, 0, maxChars) + "\"";
        }
        return bytes.length + " bytes: hex " + hex(bytes, maxChars / 2);
    }

    /** Text runs of Avro strings stay readable; other bytes become dots. */
    private static String printable(final byte[] bytes, final int from, final int maxChars) {
        final String text = new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length() && out.length() < maxChars; i++) {
            final char c = text.charAt(i);
            out.append(Character.isISOControl(c) || c == '\uFFFD' ? '.' : c);
        }
        return text.length() > maxChars ? out + "..." : out.toString();
    }

    private static boolean mostlyText(final byte[] bytes) {
        int control = 0;
        for (final byte b : bytes) {
            if (b >= 0 && b < 0x20 && b != '\n' && b != '\r' && b != '\t') {
                control++;
            }
        }
        return control * 10 < bytes.length;
    }

    private static String hex(final byte[] bytes, final int maxBytes) {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(bytes.length, maxBytes); i++) {
            out.append(String.format("%02x", bytes[i] & 0xff));
        }
        return bytes.length > maxBytes ? out + "..." : out.toString();
    }
}
