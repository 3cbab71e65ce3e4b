package dev.rwml.env.produce;

import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads back what tests published to {@code rwml.transitions}, which all tests share. */
public final class TransitionsTopic {

    private TransitionsTopic() {}

    /**
     * Every committed record of the topic, up to its end offsets now, whose key is in {@code keys},
     * grouped by key in offset order.
     */
    public static Map<String, List<Transition>> read(
            final String bootstrap, final String registryUrl, final Set<String> keys) {
        final Map<String, List<Transition>> byKey = new HashMap<>();
        try (KafkaConsumer<String, Transition> consumer =
                TestClients.readCommittedConsumer(
                        bootstrap,
                        new StringDeserializer(),
                        EventSerdes.forValue(
                                        Transition.class, EventSerdes.registryConfig(registryUrl))
                                .deserializer())) {
            for (final ConsumerRecord<String, Transition> r :
                    TestClients.readToEnd(consumer, TopicCatalog.TRANSITIONS)) {
                if (keys.contains(r.key())) {
                    byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
            }
        }
        return byKey;
    }
}
