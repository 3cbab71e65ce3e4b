package dev.rwml.runtime.start;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.ops.embedded.KafkaStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where a new consumer group of a stage starts, on a real broker: set once, kept for a group that
 * has offsets, left alone when another instance of the stage already joined the group, and an
 * unreachable broker retried for the stage's patience before the stage is told it cannot start.
 */
class StartPositionsIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void shouldSetANewGroupsStartOnceAndKeepItAfterwards() throws Exception {
        final String topic = topicWithRecords(5);
        final String group = "g-" + UUID.randomUUID();
        try (Admin admin = KAFKA.admin()) {
            final Map<TopicPartition, Long> set =
                    StartPositions.seekIfNew(
                            admin, group, topic, StartPosition.LATEST, List::of, TIMEOUT, TIMEOUT);
            assertThat(set).containsEntry(new TopicPartition(topic, 0), 5L);
            assertThat(
                            StartPositions.seekIfNew(
                                    admin,
                                    group,
                                    topic,
                                    StartPosition.LATEST,
                                    List::of,
                                    TIMEOUT,
                                    TIMEOUT))
                    .as("a group with offsets continues where it stopped")
                    .isEmpty();
        }
    }

    /**
     * Two instances started together both find the group new; the second's commit meets the first
     * already in the group, which the broker refuses. The second must start with what the first
     * set, not fail.
     */
    @Test
    void shouldLeaveTheStartToAnInstanceThatAlreadyJoinedTheGroup() throws Exception {
        final String topic = topicWithRecords(3);
        final String group = "g-" + UUID.randomUUID();
        try (KafkaConsumer<byte[], byte[]> member = member(group);
                Admin admin = KAFKA.admin()) {
            member.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (member.assignment().isEmpty() && System.nanoTime() < deadline) {
                member.poll(Duration.ofMillis(100));
            }
            assertThat(member.assignment()).as("the first instance joined").isNotEmpty();
            assertThat(
                            StartPositions.seekIfNew(
                                    admin,
                                    group,
                                    topic,
                                    StartPosition.LATEST,
                                    List::of,
                                    TIMEOUT,
                                    TIMEOUT))
                    .isEmpty();
        }
    }

    @Test
    void shouldRetryAnUnreachableBrokerForItsPatienceThenSayWhatToCheck() {
        final Duration patience = Duration.ofSeconds(3);
        try (Admin nowhere =
                Admin.create(
                        Map.of(
                                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 1000,
                                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 500))) {
            final long started = System.nanoTime();
            assertThatThrownBy(
                            () ->
                                    StartPositions.seekIfNew(
                                            nowhere,
                                            "g",
                                            "t",
                                            StartPosition.LATEST,
                                            List::of,
                                            Duration.ofMillis(500),
                                            patience))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot set the start offsets of group g on t")
                    .hasMessageContaining("check the broker is reachable");
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("retried for the patience, not given up at the first timeout")
                    .isGreaterThanOrEqualTo(patience);
        }
    }

    private static String topicWithRecords(final int records) throws Exception {
        final String topic = "start-" + UUID.randomUUID();
        try (Admin admin = KAFKA.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, new byte[] {(byte) i})).get();
            }
        }
        return topic;
    }

    private static KafkaConsumer<byte[], byte[]> member(final String group) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        KAFKA.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }
}
