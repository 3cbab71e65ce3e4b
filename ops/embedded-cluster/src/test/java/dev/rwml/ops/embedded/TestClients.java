package dev.rwml.ops.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka clients and reads that the tests of every module share: short-lived, without a consumer
 * group, against the broker of a {@link KafkaStack} or of a started cluster.
 */
public final class TestClients {

    /** How long {@link #readToEnd} reads before it fails. */
    public static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private TestClients() {}

    /** A client's settings: the broker at {@code bootstrap}, then pairs of key and value. */
    private static Map<String, Object> config(final String bootstrap, final Object... settings) {
        final Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        for (int i = 0; i < settings.length; i += 2) {
            config.put((String) settings[i], settings[i + 1]);
        }
        return config;
    }

    /** A producer to the broker at {@code bootstrap} with the client's default settings. */
    public static <K, V> KafkaProducer<K, V> producer(
            final String bootstrap, final Serializer<K> keys, final Serializer<V> values) {
        return new KafkaProducer<>(config(bootstrap), keys, values);
    }

    /** A producer to the broker at {@code bootstrap} that waits for every in-sync replica. */
    public static <K, V> KafkaProducer<K, V> acksAllProducer(
            final String bootstrap, final Serializer<K> keys, final Serializer<V> values) {
        return new KafkaProducer<>(
                config(bootstrap, ProducerConfig.ACKS_CONFIG, "all"), keys, values);
    }

    /**
     * A consumer of the broker at {@code bootstrap} that sees only committed records and commits
     * nothing (no group: the caller assigns partitions).
     */
    public static <K, V> KafkaConsumer<K, V> readCommittedConsumer(
            final String bootstrap, final Deserializer<K> keys, final Deserializer<V> values) {
        final Map<String, Object> config =
                config(
                        bootstrap,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false);
        return new KafkaConsumer<>(config, keys, values);
    }

    /** Assigns every partition of {@code topic} to {@code consumer}, at its beginning. */
    public static List<TopicPartition> assignFromBeginning(
            final Consumer<?, ?> consumer, final String topic) {
        final List<TopicPartition> partitions =
                consumer.partitionsFor(topic).stream()
                        .map(p -> new TopicPartition(topic, p.partition()))
                        .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return partitions;
    }

    /**
     * The records of every partition of {@code topic} from its beginning up to the partition's end
     * offset at the time of the call (with a {@code read_committed} consumer, the last stable
     * offset); fails after {@link #READ_TIMEOUT}. Records written after the call may be missing.
     */
    public static <K, V> List<ConsumerRecord<K, V>> readToEnd(
            final Consumer<K, V> consumer, final String topic) {
        return readToEnd(consumer, assignFromBeginning(consumer, topic));
    }

    /**
     * The records of the assigned {@code partitions} from the consumer's position in each up to its
     * end offset at the time of the call; fails after {@link #READ_TIMEOUT}.
     */
    public static <K, V> List<ConsumerRecord<K, V>> readToEnd(
            final Consumer<K, V> consumer, final List<TopicPartition> partitions) {
        final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        final List<ConsumerRecord<K, V>> records = new ArrayList<>();
        final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(
                        "could not read up to the end offsets " + ends + " within " + READ_TIMEOUT);
            }
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }
}
