package dev.rwml.runtime.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.DeadLetter;
import dev.rwml.runtime.StageName;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.topics.TopicCatalog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class DeadLetterWriterTest {

    private static final Instant AT = Instant.parse("2024-05-01T12:00:00Z");

    /** Dead letters counted by reason, as a stage's metrics count them. */
    private final Map<String, Integer> counted = new ConcurrentHashMap<>();

    private final DeadLetterWriter writer =
            new DeadLetterWriter(
                    StageName.TRAINER,
                    TopicCatalog.defaults().run("r1").deadLetters(),
                    (reason, input) -> counted.merge(reason, 1, Integer::sum),
                    Clock.fixed(AT, ZoneOffset.UTC));

    private static ConsumerRecord<byte[], byte[]> rewarded() {
        final ConsumerRecord<byte[], byte[]> record =
                new ConsumerRecord<>("rwml.r1.rewards", 2, 17, utf8("t-1"), new byte[] {42, 1});
        record.headers().add("trace", utf8("abc"));
        return record;
    }

    private static byte[] utf8(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String header(final ProducerRecord<byte[], ?> record, final String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterAConsumedRecordUnderItsDecodingReasonAndCountIt() {
        final ProducerRecord<byte[], DeadLetter> record =
                writer.deadLetter(
                        DeadLetterWriter.Source.of(rewarded()),
                        new EventDecodingException(
                                EventDecodingException.Reason.WRONG_MAGIC_BYTE,
                                "rwml.r1.rewards",
                                "first byte 42"));

        assertThat(record.topic()).isEqualTo("rwml.r1.dead-letters");
        assertThat(record.key()).isEqualTo(utf8("t-1"));
        assertThat(header(record, DeadLetters.REASON_HEADER)).isEqualTo("WRONG_MAGIC_BYTE");
        assertThat(header(record, DeadLetters.STAGE_HEADER)).isEqualTo("trainer");
        assertThat(header(record, DeadLetters.SOURCE_HEADER)).isEqualTo("rwml.r1.rewards/2/17");
        final DeadLetter letter = record.value();
        assertThat(letter.getStage()).isEqualTo("trainer");
        assertThat(letter.getFailedAt()).isEqualTo(AT);
        assertThat(letter.getOriginalValue()).isEqualTo(ByteBuffer.wrap(new byte[] {42, 1}));
        assertThat(letter.getOriginalHeaders())
                .containsEntry("trace", ByteBuffer.wrap(utf8("abc")));
        assertThat(counted).containsExactly(Map.entry("WRONG_MAGIC_BYTE", 1));
    }

    @Test
    void shouldHeadAndCountALetterWithTheReasonItIsGiven() {
        final ProducerRecord<byte[], DeadLetter> record =
                writer.deadLetter(
                        new DeadLetterWriter.Source(
                                "rwml.r0.predictions", 1, -1, null, new byte[] {7}, null),
                        new IllegalStateException("no transition"),
                        "NO_TRANSITION_WITHIN_WINDOW");

        assertThat(header(record, DeadLetters.REASON_HEADER))
                .isEqualTo("NO_TRANSITION_WITHIN_WINDOW");
        assertThat(header(record, DeadLetters.SOURCE_HEADER)).isEqualTo("rwml.r0.predictions/1/-1");
        assertThat(record.key()).isNull();
        assertThat(record.value().getErrorMessage()).isEqualTo("no transition");
        assertThat(counted).containsExactly(Map.entry("NO_TRANSITION_WITHIN_WINDOW", 1));
    }

    @Test
    void shouldCountAFailureThatIsNotTheDataAsProcessing() {
        writer.deadLetter(
                DeadLetterWriter.Source.of(rewarded()), new IllegalArgumentException("unfit"));

        assertThat(counted).containsExactly(Map.entry(DeadLetters.PROCESSING, 1));
    }

    @Test
    void shouldEncodeTheLetterKeepingTopicKeyAndHeaders() {
        final ProducerRecord<byte[], DeadLetter> record =
                writer.deadLetter(
                        DeadLetterWriter.Source.of(rewarded()), new IllegalStateException("x"));

        final ProducerRecord<byte[], byte[]> encoded =
                writer.encoded(
                        DeadLetterWriter.Source.of(rewarded()),
                        new IllegalStateException("x"),
                        DeadLetters.PROCESSING,
                        (topic, letter) -> utf8(topic + ":" + letter.getStage()));

        assertThat(encoded.topic()).isEqualTo("rwml.r1.dead-letters");
        assertThat(encoded.partition()).isNull();
        assertThat(encoded.key()).isEqualTo(utf8("t-1"));
        assertThat(encoded.value()).isEqualTo(utf8("rwml.r1.dead-letters:trainer"));
        assertThat(encoded.headers()).isEqualTo(record.headers());
    }

    @Test
    void shouldNotCountALetterWhoseEncodingFails() {
        assertThatThrownBy(
                        () ->
                                writer.encoded(
                                        DeadLetterWriter.Source.of(rewarded()),
                                        new IllegalStateException("x"),
                                        DeadLetters.PROCESSING,
                                        (topic, letter) -> {
                                            throw new IllegalStateException("registry unreachable");
                                        }))
                .hasMessageContaining("registry unreachable");

        assertThat(counted).as("nothing was sent").isEmpty();
    }

    @Test
    void shouldReadEverySourceFieldFromAConsumedRecord() {
        final ConsumerRecord<byte[], byte[]> consumed = rewarded();

        final DeadLetterWriter.Source source = DeadLetterWriter.Source.of(consumed);

        assertThat(source.topic()).isEqualTo("rwml.r1.rewards");
        assertThat(source.partition()).isEqualTo(2);
        assertThat(source.offset()).isEqualTo(17);
        assertThat(source.key()).isEqualTo(utf8("t-1"));
        assertThat(source.value()).isEqualTo(new byte[] {42, 1});
        assertThat(source.headers()).isSameAs(consumed.headers());
    }
}
