package dev.rwml.ops.embedded;

import static dev.rwml.ops.embedded.ClusterProbe.bytesConsumer;
import static dev.rwml.ops.embedded.ClusterProbe.bytesProducer;
import static dev.rwml.ops.embedded.ClusterProbe.get;
import static dev.rwml.ops.embedded.ClusterProbe.post;
import static dev.rwml.ops.embedded.ClusterProbe.put;
import static dev.rwml.ops.embedded.ClusterProbe.register;
import static dev.rwml.ops.embedded.ClusterProbe.schemaBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KafkaStackIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static String unique(final String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    void shouldShareOneClusterAmongStacksInTheSameJvm() {
        assertThat(KafkaStack.embedded().bootstrapServers()).isEqualTo(KAFKA.bootstrapServers());
        assertThat(KafkaStack.embedded().schemaRegistryUrl()).isEqualTo(KAFKA.schemaRegistryUrl());
        assertThat(KAFKA.schemaRegistryUrl()).endsWith("/apis/ccompat/v7");
    }

    @Test
    void shouldRefuseIncompatibleSchemaWhenSubjectIsBackwardCompatible() throws Exception {
        final String subject = unique("evolving") + "-value";
        final String registry = KAFKA.schemaRegistryUrl();
        assertThat(
                        put(registry + "/config/" + subject, "{\"compatibility\":\"BACKWARD\"}")
                                .statusCode())
                .isEqualTo(200);
        register(registry, subject, schemaBody("E", "{\"name\":\"a\",\"type\":\"string\"}"));

        final var withoutDefault =
                post(
                        registry + "/subjects/" + subject + "/versions",
                        schemaBody(
                                "E",
                                "{\"name\":\"a\",\"type\":\"string\"},{\"name\":\"b\",\"type\":\"int\"}"));
        assertThat(withoutDefault.statusCode()).as(withoutDefault.body()).isEqualTo(409);

        final int evolved =
                register(
                        registry,
                        subject,
                        schemaBody(
                                "E",
                                "{\"name\":\"a\",\"type\":\"string\"},"
                                        + "{\"name\":\"b\",\"type\":\"int\",\"default\":0}"));
        assertThat(get(registry + "/schemas/ids/" + evolved).body()).contains("default");
    }

    @Test
    void shouldReturnTheExistingIdWhenTheSameSchemaIsRegisteredAgain() throws Exception {
        final String registry = KAFKA.schemaRegistryUrl();
        final String name = "F" + UUID.randomUUID().toString().replace("-", "");
        final String subject = unique("f") + "-value";
        final String compact = schemaBody(name, "{\"name\":\"x\",\"type\":\"double\"}");
        final int first = register(registry, subject, compact);
        // Serializers re-register on every start, often with differently formatted text.
        final int reformatted =
                register(
                        registry,
                        subject,
                        schemaBody(name, "{ \"name\" : \"x\", \"type\" : \"double\" }"));
        final int otherSubject = register(registry, unique("g") + "-value", compact);
        assertThat(reformatted).isEqualTo(first);
        assertThat(otherSubject).isEqualTo(first);
        assertThat(get(registry + "/subjects/" + subject + "/versions").body()).isEqualTo("[1]");
    }

    @Test
    void shouldCommitTransactionsAndCarryEightMebibyteRecords() throws Exception {
        final String topic = unique("chunks");
        final byte[] chunk = new byte[8 * 1024 * 1024];
        chunk[chunk.length - 1] = 42;
        try (KafkaProducer<byte[], byte[]> producer =
                bytesProducer(
                        Map.of(
                                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                                unique("tx"),
                                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                                16 * 1024 * 1024))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k".getBytes(), chunk));
            producer.commitTransaction();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = bytesConsumer(KAFKA.bootstrapServers())) {
            final TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final List<byte[]> values = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () -> {
                                for (ConsumerRecord<byte[], byte[]> r :
                                        consumer.poll(Duration.ofMillis(200))) {
                                    values.add(r.value());
                                }
                                return !values.isEmpty();
                            });
            assertThat(values.get(0)).hasSize(chunk.length).endsWith(42);
        }
    }
}
