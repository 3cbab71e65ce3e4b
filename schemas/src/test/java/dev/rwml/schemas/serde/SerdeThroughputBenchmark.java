package dev.rwml.schemas.serde;

import static org.awaitility.Awaitility.await;

import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.schemas.SampleEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce and consume throughput of ~1 KB Transition events through the Avro serde and the real
 * registry, against the same events as pre-encoded raw bytes on the same broker.
 */
class SerdeThroughputBenchmark {
    private static final Logger LOG = LoggerFactory.getLogger(SerdeThroughputBenchmark.class);

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final int RECORDS = 30_000;
    private static final int ROUNDS = 2;

    @Test
    void compareAvroSerdeWithRawBytes() throws Exception {
        final EventSerde<Transition> serde =
                EventSerdes.forValue(
                        Transition.class, EventSerdes.registryConfig(KAFKA.schemaRegistryUrl()));
        final List<Transition> events = new ArrayList<>(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            events.add(SampleEvents.transition(i, 780));
        }
        final String probeTopic = "bench-probe-" + UUID.randomUUID();
        final List<byte[]> raw = new ArrayList<>(RECORDS);
        for (final Transition event : events) {
            raw.add(serde.serializer().serialize(probeTopic, event));
        }
        final int size = raw.get(0).length;

        // The serde alone, without a broker: what the Avro path adds per record.
        double encode = 0;
        double decode = 0;
        for (int round = 0; round < ROUNDS; round++) {
            encode = Math.max(encode, encodeRate(serde, events, probeTopic));
            decode = Math.max(decode, decodeRate(serde, raw, probeTopic));
        }

        // Alternate the two paths and keep each one's best round, so a burst of load on the
        // shared machine does not decide the ratio.
        double avroProduce = 0;
        double rawProduce = 0;
        double avroConsume = 0;
        double rawConsume = 0;
        for (int round = 0; round < ROUNDS; round++) {
            final String avroTopic = "bench-avro-" + UUID.randomUUID();
            final String rawTopic = "bench-raw-" + UUID.randomUUID();
            rawProduce = Math.max(rawProduce, produce(rawTopic, raw, new ByteArraySerializer()));
            avroProduce = Math.max(avroProduce, produce(avroTopic, events, serde.serializer()));
            rawConsume = Math.max(rawConsume, consume(rawTopic, new ByteArrayDeserializer()));
            avroConsume = Math.max(avroConsume, consume(avroTopic, serde.deserializer()));
        }

        final String report =
                String.format(
                        "%nSerde throughput, %d Transition records of %d bytes, best of %d rounds,"
                                + " one embedded broker (acks=all, idempotent)%n"
                                + "  serde only: encode %,10.0f rec/s   decode %,10.0f rec/s%n"
                                + "  produce: avro+registry %,10.0f rec/s   raw bytes %,10.0f rec/s"
                                + "   ratio %.2f%n"
                                + "  consume: avro+registry %,10.0f rec/s   raw bytes %,10.0f rec/s"
                                + "   ratio %.2f%n",
                        RECORDS,
                        size,
                        ROUNDS,
                        encode,
                        decode,
                        avroProduce,
                        rawProduce,
                        avroProduce / rawProduce,
                        avroConsume,
                        rawConsume,
                        avroConsume / rawConsume);
        LOG.info("{}", report);
    }

    private static double encodeRate(
            final EventSerde<Transition> serde, final List<Transition> events, final String topic) {
        // Counting non-empty results keeps the JIT from dropping the work.
        int encoded = 0;
        final long start = System.nanoTime();
        for (final Transition event : events) {
            encoded += serde.serializer().serialize(topic, event).length > 0 ? 1 : 0;
        }
        return encoded / ((System.nanoTime() - start) / 1e9);
    }

    private static double decodeRate(
            final EventSerde<Transition> serde, final List<byte[]> raw, final String topic) {
        int steps = 0;
        final long start = System.nanoTime();
        for (final byte[] bytes : raw) {
            steps += serde.deserializer().deserialize(topic, bytes).getStep() >= 0 ? 1 : 0;
        }
        return steps / ((System.nanoTime() - start) / 1e9);
    }

    private static <V> double produce(
            final String topic, final List<V> values, final Serializer<V> serializer)
            throws Exception {
        final long start = System.nanoTime();
        try (KafkaProducer<String, V> producer =
                new KafkaProducer<>(
                        Map.of(
                                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ProducerConfig.LINGER_MS_CONFIG,
                                5,
                                ProducerConfig.BATCH_SIZE_CONFIG,
                                256 * 1024),
                        new StringSerializer(),
                        serializer)) {
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, "alfworld/ep/" + i, values.get(i)));
            }
            producer.flush();
        }
        return values.size() / ((System.nanoTime() - start) / 1e9);
    }

    private static <V> double consume(final String topic, final Deserializer<V> deserializer) {
        final int[] count = {0};
        try (KafkaConsumer<String, V> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                                2_000),
                        new StringDeserializer(),
                        deserializer)) {
            // Assigned, not subscribed: a group rebalance would be measured with the decoding.
            TestClients.assignFromBeginning(consumer, topic);
            final long start = System.nanoTime();
            await().atMost(Duration.ofMinutes(2))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1))
                    .until(
                            () -> {
                                count[0] += consumer.poll(Duration.ofMillis(100)).count();
                                return count[0] >= RECORDS;
                            });
            return count[0] / ((System.nanoTime() - start) / 1e9);
        }
    }
}
