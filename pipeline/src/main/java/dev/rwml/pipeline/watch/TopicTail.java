package dev.rwml.pipeline.watch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A read_committed consumer on every partition of one topic, reading from its beginning and
 * counting what it read.
 */
final class TopicTail implements AutoCloseable {

    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration CATCH_UP = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(200);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Consumer<ConsumerRecord<byte[], byte[]>> handler;
    private long records;

    private TopicTail(
            final KafkaConsumer<byte[], byte[]> consumer,
            final Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        this.consumer = consumer;
        this.handler = handler;
    }

    /** A tail of {@code topic}, or null (and the consumer closed) while it has no partitions. */
    static TopicTail open(
            final KafkaConsumer<byte[], byte[]> consumer,
            final String topic,
            final Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        try {
            final List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, METADATA_TIMEOUT).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            if (partitions.isEmpty()) {
                consumer.close();
                return null;
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            return new TopicTail(consumer, handler);
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
    }

    /** Records read so far, tombstones included; the handler saw the others. */
    long records() {
        return records;
    }

    /** Reads up to the ends the topic has now, for at most {@link #CATCH_UP}. */
    void catchUp() {
        final Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        final long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (behind(ends) && System.nanoTime() < deadline) {
            for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                records++;
                if (r.value() != null) {
                    handler.accept(r);
                }
            }
        }
    }

    private boolean behind(final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
