package dev.rwml.ops.cli.replay;

import dev.rwml.runtime.settings.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts the committed records of one topic from its beginning, reading on at each call; what a
 * stage has written for good (read_committed) rather than what its meters saw.
 */
final class RecordCounter implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(100);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private long count;

    RecordCounter(final Connection connection, final String topic) {
        final Map<String, Object> c = connection.kafkaConfig(Map.of());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        consumer = new KafkaConsumer<>(c);
        final List<TopicPartition> partitions =
                consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(topic, p.partition()))
                        .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** The records read so far, after reading what has arrived since the last call. */
    long count() {
        int n;
        do {
            n = consumer.poll(POLL).count();
            count += n;
        } while (n > 0);
        return count;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
