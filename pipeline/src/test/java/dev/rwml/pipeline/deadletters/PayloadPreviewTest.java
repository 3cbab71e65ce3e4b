package dev.rwml.pipeline.deadletters;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PayloadPreviewTest {

    @Test
    void shouldNameSchemaIdAndShowAvroStringsWhenConfluentFramed() {
        final byte[] text = "You open the fridge 1.".getBytes(StandardCharsets.UTF_8);
        final ByteBuffer framed = ByteBuffer.allocate(6 + text.length);
        framed.put((byte) 0).putInt(42).put((byte) (text.length * 2)).put(text);

        assertThat(PayloadPreview.of(framed.array(), 80))
                .startsWith("avro schema 42, 28 bytes: ")
                .contains("You open the fridge 1.");
    }

    @Test
    void shouldQuoteTextPayloads() {
        assertThat(PayloadPreview.of("{\"not\": \"avro\"}".getBytes(StandardCharsets.UTF_8), 80))
                .isEqualTo("15 bytes: \"{\"not\": \"avro\"}\"");
    }

    @Test
    void shouldShowBinaryAsShortenedHex() {
        final byte[] binary = {1, 2, 3, 4, 5, 6, 7, 8, (byte) 0xff, 0x10};

        assertThat(PayloadPreview.of(binary, 8)).isEqualTo("10 bytes: hex 01020304...");
    }

    @Test
    void shouldShortenLongTextAndSayEmptyForNoBytes() {
        assertThat(PayloadPreview.of("a".repeat(100).getBytes(StandardCharsets.UTF_8), 10))
                .isEqualTo("100 bytes: \"aaaaaaaaaa...\"");
        assertThat(PayloadPreview.of(new byte[0], 10)).isEqualTo("(empty)");
    }
}
