package dev.rwml.env.produce;

import static org.awaitility.Awaitility.await;

import dev.rwml.events.Transition;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads back what tests published to {@code rwml.transitions}, which all tests share. */
public final class TransitionsTopic {

    private TransitionsTopic() {}

    /**
     * Every record of the topic whose key is in {@code keys}, grouped by key in offset order, once
     * {@code expected} such records arrived.
     */
    public static Map<String, List<Transition>> read(
            final String bootstrap,
            final String registryUrl,
            final Set<String> keys,
            final int expected) {
        final Map<String, List<Transition>> byKey = new HashMap<>();
        final AtomicInteger count = new AtomicInteger();
        try (KafkaConsumer<String, Transition> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                bootstrap,
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed"),
                        new StringDeserializer(),
                        EventSerdes.forValue(
                                        Transition.class, EventSerdes.registryConfig(registryUrl))
                                .deserializer())) {
            final List<TopicPartition> partitions =
                    consumer.partitionsFor(TopicCatalog.TRANSITIONS).stream()
                            .map(p -> new TopicPartition(p.topic(), p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await().atMost(Duration.ofSeconds(60))
                    .until(
                            () -> {
                                for (final ConsumerRecord<String, Transition> r :
                                        consumer.poll(Duration.ofMillis(200))) {
                                    if (keys.contains(r.key())) {
                                        byKey.computeIfAbsent(r.key(), k -> new ArrayList<>())
                                                .add(r.value());
                                        count.incrementAndGet();
                                    }
                                }
                                return count.get() >= expected;
                            });
        }
        return byKey;
    }
}
