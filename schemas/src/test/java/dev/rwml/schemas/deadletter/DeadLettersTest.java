package dev.rwml.schemas.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.DeadLetter;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.topics.TopicCatalog;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;

class DeadLettersTest {
    private static final Instant AT = Instant.ofEpochMilli(1_700_000_000_000L);

    private final byte[] key = "alfworld/e/1".getBytes(StandardCharsets.UTF_8);
    private final byte[] value = {1, 2, 3};
    private final ConsumerRecord<byte[], byte[]> source = sourceRecord();

    private ConsumerRecord<byte[], byte[]> sourceRecord() {
        final RecordHeaders headers = new RecordHeaders();
        headers.add("trace", new byte[] {7});
        return new ConsumerRecord<>(
                "rwml.transitions",
                2,
                41L,
                0L,
                TimestampType.CREATE_TIME,
                key.length,
                value.length,
                key,
                value,
                headers,
                Optional.empty());
    }

    @Test
    void shouldKeepOriginalBytesSourceAndErrorOfAFailedRecord() {
        final EventDecodingException error =
                new EventDecodingException(
                        EventDecodingException.Reason.WRONG_MAGIC_BYTE, "rwml.transitions", "x");
        final DeadLetter letter = DeadLetters.of("prediction-stream", source, error, AT);

        assertThat(letter.getStage()).isEqualTo("prediction-stream");
        assertThat(letter.getErrorClass()).isEqualTo(EventDecodingException.class.getName());
        assertThat(letter.getErrorMessage()).contains("WRONG_MAGIC_BYTE");
        assertThat(letter.getSourceTopic()).isEqualTo("rwml.transitions");
        assertThat(letter.getSourcePartition()).isEqualTo(2);
        assertThat(letter.getSourceOffset()).isEqualTo(41L);
        assertThat(letter.getOriginalKey().array()).isEqualTo(key);
        assertThat(letter.getOriginalValue().array()).isEqualTo(value);
        assertThat(letter.getOriginalHeaders().get("trace").array()).isEqualTo(new byte[] {7});
        assertThat(letter.getFailedAt()).isEqualTo(AT);
    }

    @Test
    void shouldNameDecodingReasonOrProcessing() {
        final Exception decoding =
                new RuntimeException(
                        new EventDecodingException(
                                EventDecodingException.Reason.UNKNOWN_SCHEMA_ID, "t", "m"));
        assertThat(DeadLetters.reasonOf(decoding)).isEqualTo("UNKNOWN_SCHEMA_ID");
        assertThat(DeadLetters.reasonOf(new IllegalStateException("NaN")))
                .isEqualTo(DeadLetters.PROCESSING);
    }

    @Test
    void shouldIncludeRootCauseInMessage() {
        final DeadLetter letter =
                DeadLetters.of(
                        "reward-stream",
                        source,
                        new IllegalStateException("scoring failed", new ArithmeticException("NaN")),
                        AT);
        assertThat(letter.getErrorMessage())
                .isEqualTo("scoring failed <- ArithmeticException: NaN");
    }

    @Test
    void shouldPublishKeyedByOriginalKeyWithHeadersNamingStageAndSource() {
        final DeadLetter letter =
                DeadLetters.of("prediction-stream", source, new IllegalStateException("x"), AT);
        final ProducerRecord<byte[], DeadLetter> record =
                DeadLetters.toDeadLetterTopic(
                        TopicCatalog.defaults().run("r1").deadLetters(), letter, "PROCESSING");

        assertThat(record.topic()).isEqualTo("rwml.r1.dead-letters");
        assertThat(record.key()).isEqualTo(key);
        assertThat(header(record, DeadLetters.STAGE_HEADER)).isEqualTo("prediction-stream");
        assertThat(header(record, DeadLetters.SOURCE_HEADER)).isEqualTo("rwml.transitions/2/41");
        assertThat(header(record, DeadLetters.REASON_HEADER)).isEqualTo("PROCESSING");
    }

    @Test
    void shouldKeepOnlyTheHeadOfAnOriginalValueTooLargeToPublishAndSaySo() {
        final byte[] huge = new byte[DeadLetters.MAX_ORIGINAL_VALUE_BYTES + 1000];
        huge[0] = 42;
        final DeadLetter letter =
                DeadLetters.of(
                        "reward",
                        "rwml.transitions",
                        0,
                        7,
                        key,
                        huge,
                        new RecordHeaders(),
                        new IllegalArgumentException("too big"),
                        AT);
        final DeadLetter out =
                DeadLetters.toDeadLetterTopic(
                                TopicCatalog.defaults().run("r1").deadLetters(), letter, "X")
                        .value();

        assertThat(out.getOriginalValue().remaining())
                .isEqualTo(DeadLetters.MAX_ORIGINAL_VALUE_BYTES);
        assertThat(out.getOriginalValue().get(0)).isEqualTo((byte) 42);
        assertThat(out.getErrorMessage())
                .contains("too big")
                .contains("the original value has " + huge.length + " bytes");
    }

    @Test
    void shouldRedriveTheOriginalRecordToItsSourceTopic() {
        final DeadLetter letter =
                DeadLetters.of("prediction-stream", source, new IllegalStateException("x"), AT);
        final ProducerRecord<byte[], byte[]> redriven = DeadLetters.redrive(letter);

        assertThat(redriven.topic()).isEqualTo("rwml.transitions");
        assertThat(redriven.key()).isEqualTo(key);
        assertThat(redriven.value()).isEqualTo(value);
        assertThat(redriven.headers().lastHeader("trace").value()).isEqualTo(new byte[] {7});
        assertThat(Serdes.String().deserializer().deserialize("t", redriven.key()))
                .isEqualTo("alfworld/e/1");
    }

    @Test
    void shouldKeepNullKeyAndValueAsNull() {
        final DeadLetter letter =
                DeadLetters.of(
                        "importer", "t", 0, 0L, null, null, null, new IllegalStateException(), AT);
        assertThat(letter.getOriginalKey()).isNull();
        assertThat(letter.getErrorMessage()).isEqualTo("IllegalStateException");
        final ProducerRecord<byte[], byte[]> redriven = DeadLetters.redrive(letter);
        assertThat(redriven.key()).isNull();
        assertThat(redriven.value()).isNull();
    }

    private static String header(final ProducerRecord<?, ?> record, final String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
