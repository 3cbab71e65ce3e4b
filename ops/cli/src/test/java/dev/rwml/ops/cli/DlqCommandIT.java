package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.events.DeadLetter;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code rwml dlq} against the embedded cluster: a dead letter the test writes, then resent. */
class DlqCommandIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final String RUN = "dlq-it-" + Long.toString(System.nanoTime(), 36);
    private static final String KEY = "alfworld/" + RUN + "/3";

    /** Confluent framing with a schema id no registry knows, then an Avro-ish string. */
    private static final byte[] VALUE = value();

    @BeforeAll
    static void writeOneDeadLetter() throws Exception {
        RunFixtures.ensureRunTopics(KAFKA.bootstrapServers(), RUN);
        final TopicSpec<byte[], DeadLetter> topic = TopicCatalog.defaults().run(RUN).deadLetters();
        final RecordHeaders headers = new RecordHeaders();
        headers.add("trace", "t-17".getBytes(StandardCharsets.UTF_8));
        final DeadLetter letter =
                DeadLetters.of(
                        "prediction",
                        TopicCatalog.TRANSITIONS,
                        0,
                        4242,
                        KEY.getBytes(StandardCharsets.UTF_8),
                        VALUE,
                        headers,
                        new IllegalStateException("schema id 9999 is not registered"),
                        Instant.parse("2026-11-30T10:00:05Z"));
        try (KafkaProducer<byte[], DeadLetter> producer =
                new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()),
                        new ByteArraySerializer(),
                        EventSerdes.forValue(
                                        DeadLetter.class,
                                        EventSerdes.registryConfig(KAFKA.schemaRegistryUrl()))
                                .serializer())) {
            producer.send(DeadLetters.toDeadLetterTopic(topic, letter, "UNKNOWN_SCHEMA")).get();
        }
    }

    @Test
    void shouldListTheDeadLetterWithStageReasonSourceAndPayloadPreview() {
        final CliRunner.Result list = dlq("list");

        assertThat(list.code()).as(list.err()).isZero();
        assertThat(list.out())
                .contains("rwml." + RUN + ".dead-letters: 1 dead letters shown")
                .containsPattern(
                        "0\\s+2026-11-30 10:00:05Z\\s+prediction\\s+UNKNOWN_SCHEMA\\s+"
                                + "rwml.transitions/0/4242\\s+avro schema 9999, 24 bytes: ");
    }

    @Test
    void shouldShowTheWholeLetterWithErrorKeyAndHeaders() {
        final CliRunner.Result show = dlq("show", "0");

        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out())
                .contains("error:   java.lang.IllegalStateException")
                .contains("message: schema id 9999 is not registered")
                .contains("key:     " + KEY.length() + " bytes: \"" + KEY + "\"")
                .contains("header trace: 4 bytes: \"t-17\"");
    }

    @Test
    void shouldCountTheDeadLetterInStatus() throws Exception {
        final CliRunner.Result status =
                rwml(
                        "status",
                        "--run",
                        RUN,
                        "--json",
                        "--sample-seconds",
                        "0",
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        KAFKA.schemaRegistryUrl());

        assertThat(status.code()).as(status.err()).isZero();
        final JsonNode runTopic =
                new ObjectMapper().readTree(status.out()).get("deadLetters").get(0);
        assertThat(runTopic.get("topic").asText()).isEqualTo("rwml." + RUN + ".dead-letters");
        assertThat(runTopic.get("count").asLong()).isEqualTo(1);
        assertThat(runTopic.get("latest").get(0).get("source").asText())
                .isEqualTo("rwml.transitions/0/4242");
    }

    @Test
    void shouldPutTheOriginalBytesBackOnTheSourceTopicWhenResent() {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
            final List<TopicPartition> partitions =
                    consumer.partitionsFor(TopicCatalog.TRANSITIONS).stream()
                            .map(p -> new TopicPartition(p.topic(), p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);

            final CliRunner.Result resend = dlq("resend", "--offset", "0");

            assertThat(resend.code()).as(resend.err()).isZero();
            assertThat(resend.out())
                    .containsPattern(
                            "resent #0 \\(UNKNOWN_SCHEMA from rwml.transitions/0/4242\\) to rwml.transitions/\\d+/\\d+")
                    .contains("1 resent, 0 skipped");
            final List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> {
                                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                                return seen.stream().anyMatch(r -> KEY.equals(key(r)));
                            });
            final ConsumerRecord<byte[], byte[]> back =
                    seen.stream().filter(r -> KEY.equals(key(r))).findFirst().orElseThrow();
            assertThat(back.value()).isEqualTo(VALUE);
            assertThat(back.headers().lastHeader("trace").value())
                    .isEqualTo("t-17".getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void shouldSayHowToFindOffsetsWhenNoLetterIsThere() {
        final CliRunner.Result resend = dlq("resend", "--offset", "5");

        assertThat(resend.code()).isEqualTo(1);
        assertThat(resend.err())
                .contains("no dead letter at offset 5 of rwml." + RUN + ".dead-letters")
                .contains("rwml dlq list");
    }

    private static CliRunner.Result dlq(final String... sub) {
        return RunFixtures.rwmlOnRun(KAFKA, "dlq", RUN, sub);
    }

    private static String key(final ConsumerRecord<byte[], byte[]> r) {
        return r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    }

    private static byte[] value() {
        final byte[] text = "broken payload!!!!".getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + 1 + text.length)
                .put((byte) 0)
                .putInt(9999)
                .put((byte) (text.length * 2))
                .put(text)
                .array();
    }
}
