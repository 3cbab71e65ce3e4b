package dev.rwml.pipeline.deadletters;

import dev.rwml.events.DeadLetter;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a run's dead-letter topic ({@code rwml.<run>.dead-letters}) and sends letters back to their
 * source topics with their original key, value and headers (through {@link DeadLetters#redrive}).
 * Reads only committed records, as the stages write dead letters inside their transactions.
 */
public final class DeadLetterStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterStore.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(200);

    private final Connection connection;
    private final EventSerde<DeadLetter> serde;
    private KafkaProducer<byte[], byte[]> producer;

    /**
     * A store on the connection's cluster and registry, every client with its security settings;
     * opens connections only when used.
     */
    public DeadLetterStore(final Connection connection) {
        this.connection = connection;
        this.serde = EventSerdes.forValue(DeadLetter.class, connection.registryConfig());
    }

    /** The dead-letter topic of {@code run}, where every stage of the run writes its letters. */
    public static String topicOf(final String run) {
        return TopicCatalog.defaults().run(run).deadLetters().name();
    }

    /** Every letter on {@code topic}, oldest first per partition (empty when it does not exist). */
    public List<DeadLetterEntry> all(final String topic) {
        return read(topic, Long.MAX_VALUE);
    }

    /** The newest {@code limit} letters on {@code topic}, oldest first. */
    public List<DeadLetterEntry> latest(final String topic, final int limit) {
        final List<DeadLetterEntry> entries = new ArrayList<>(read(topic, limit));
        entries.sort(Comparator.comparing(DeadLetterEntry::timestamp));
        return entries.subList(Math.max(0, entries.size() - limit), entries.size());
    }

    /** The letter at {@code partition}/{@code offset} of {@code topic}, if there is one. */
    public Optional<DeadLetterEntry> at(
            final String topic, final int partition, final long offset) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            final TopicPartition tp = new TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            final long end = consumer.endOffsets(List.of(tp)).get(tp);
            if (offset >= end) {
                return Optional.empty();
            }
            consumer.seek(tp, offset);
            final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (consumer.position(tp) <= offset && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    if (r.offset() == offset) {
                        return Optional.of(entry(r));
                    }
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Sends the original record of {@code entry} back to its source topic and waits for the
     * broker's acknowledgement. The dead letter stays on its topic (topics are append-only): a
     * second resend sends the record again.
     */
    public RecordMetadata resend(final DeadLetterEntry entry) {
        if (!entry.decoded()) {
            throw new IllegalArgumentException(
                    "dead letter "
                            + entry.topic()
                            + "/"
                            + entry.partition()
                            + "/"
                            + entry.offset()
                            + " cannot be decoded ("
                            + entry.problem()
                            + "), so its original record is unknown; it cannot be sent back");
        }
        try {
            return DeadLetters.redrive(producer(), entry.letter())
                    .get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while resending " + entry.source(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "resending "
                            + entry.source()
                            + " to "
                            + entry.letter().getSourceTopic()
                            + " failed: "
                            + e.getMessage()
                            + "; check that the topic exists and the brokers are reachable",
                    e);
        }
    }

    /** Letters on {@code topic}: the last {@code perPartition} of each partition. */
    private List<DeadLetterEntry> read(final String topic, final long perPartition) {
        final List<DeadLetterEntry> entries = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            final List<PartitionInfo> infos = consumer.partitionsFor(topic, READ_TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                return List.of();
            }
            final List<TopicPartition> partitions =
                    infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            final Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
            final Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            final Map<TopicPartition, Long> pending = new HashMap<>();
            for (final TopicPartition tp : partitions) {
                final long from =
                        Math.max(begin.get(tp), saturatedMinus(end.get(tp), perPartition));
                consumer.seek(tp, from);
                if (from < end.get(tp)) {
                    pending.put(tp, end.get(tp));
                }
            }
            final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    entries.add(entry(r));
                }
                pending.keySet().removeIf(tp -> consumer.position(tp) >= pending.get(tp));
            }
            if (!pending.isEmpty()) {
                LOG.warn(
                        "Stopped reading {} after {}: {} partitions not read to the end",
                        topic,
                        READ_TIMEOUT,
                        pending.size());
            }
        }
        return entries;
    }

    private DeadLetterEntry entry(final ConsumerRecord<byte[], byte[]> r) {
        final Header reason = r.headers().lastHeader(DeadLetters.REASON_HEADER);
        final String reasonText =
                reason == null ? "-" : new String(reason.value(), StandardCharsets.UTF_8);
        DeadLetter letter = null;
        String problem = null;
        try {
            letter = serde.deserializer().deserialize(r.topic(), r.value());
        } catch (RuntimeException e) {
            problem = e.getClass().getSimpleName() + ": " + e.getMessage();
            LOG.debug(
                    "Undecodable dead letter at {}-{}@{}", r.topic(), r.partition(), r.offset(), e);
        }
        return new DeadLetterEntry(
                r.topic(),
                r.partition(),
                r.offset(),
                Instant.ofEpochMilli(r.timestamp()),
                reasonText,
                letter,
                problem);
    }

    /** The settings of the consumers that read letters: the connection's, read_committed. */
    public Map<String, Object> consumerConfig() {
        // A dead letter may carry a whole model chunk.
        return connection.readCommittedConsumerConfig(
                "rwml-dlq-reader",
                Map.of(
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                        TopicCatalog.MODEL_CHUNK_MAX_MESSAGE_BYTES * 2));
    }

    /** The settings of the producer that resends letters: the connection's, idempotent. */
    public Map<String, Object> producerConfig() {
        return connection.idempotentProducerConfig(
                "rwml-dlq-resend", TopicCatalog.modelChunkProducerOverrides());
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        return new KafkaConsumer<>(
                consumerConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            producer =
                    new KafkaProducer<>(
                            producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    private static long saturatedMinus(final long value, final long minus) {
        return minus >= value ? 0 : value - minus;
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
        }
        serde.close();
    }
}
