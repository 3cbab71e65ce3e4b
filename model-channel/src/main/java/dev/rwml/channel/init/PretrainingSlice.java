package dev.rwml.channel.init;

import dev.rwml.events.OffsetRange;
import dev.rwml.events.Transition;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transitions a base model is pretrained on: read from {@code rwml.transitions} from the
 * earliest offsets up to the end offsets seen when reading starts, at most a given number,
 * optionally of some environments only, with the exact offset ranges that were read.
 *
 * @param transitions the transitions kept, ordered by transition id
 * @param lineage per partition of the transitions topic, the range {@code [from, until)} read; a
 *     partition not read at all has an empty range, so {@code until} is where the next reader of
 *     that partition starts
 * @param scanned records read inside the ranges, kept or not
 * @param otherEnvs records of environments outside the filter, read and left out
 * @param undecodable records that were empty or could not be decoded, read and left out
 */
public record PretrainingSlice(
        List<Transition> transitions,
        List<OffsetRange> lineage,
        long scanned,
        long otherEnvs,
        long undecodable) {

    private static final Logger LOG = LoggerFactory.getLogger(PretrainingSlice.class);

    public PretrainingSlice {
        transitions = List.copyOf(transitions);
        lineage = List.copyOf(lineage);
    }

    /**
     * Reads a slice.
     *
     * @param connection the cluster the consumer reads, with its security settings
     * @param transitionSerde decodes the topic's values
     * @param maxTransitions the most transitions to keep
     * @param envs environment names to keep; empty keeps every environment
     * @param timeout the longest the read may take before it fails
     * @param clientId the consumer's client id, for the broker's logs
     */
    public static PretrainingSlice read(
            final Connection connection,
            final EventSerde<Transition> transitionSerde,
            final int maxTransitions,
            final Set<String> envs,
            final Duration timeout,
            final String clientId) {
        if (maxTransitions <= 0) {
            throw new IllegalArgumentException(
                    "maxTransitions must be positive, got " + maxTransitions);
        }
        try (Consumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        connection.readCommittedConsumerConfig(
                                clientId,
                                Map.of(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false)))) {
            return new Reader(consumer, transitionSerde, maxTransitions, envs, timeout).read();
        }
    }

    /** One pass over the topic; its state lives only for the read. */
    private static final class Reader {
        private final Consumer<byte[], byte[]> consumer;
        private final EventSerde<Transition> serde;
        private final int max;
        private final Set<String> envs;
        private final Duration timeout;
        private final List<Transition> kept = new ArrayList<>();
        private final Map<TopicPartition, Long> until = new LinkedHashMap<>();
        private long scanned;
        private long otherEnvs;
        private long undecodable;

        Reader(
                final Consumer<byte[], byte[]> consumer,
                final EventSerde<Transition> serde,
                final int max,
                final Set<String> envs,
                final Duration timeout) {
            this.consumer = consumer;
            this.serde = serde;
            this.max = max;
            this.envs = Set.copyOf(envs);
            this.timeout = timeout;
        }

        PretrainingSlice read() {
            final List<TopicPartition> partitions = partitions();
            consumer.assign(partitions);
            final Map<TopicPartition, Long> from = consumer.beginningOffsets(partitions, timeout);
            // For read_committed this is the last stable offset: the snapshot the slice is cut at.
            final Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            final Set<TopicPartition> open = new HashSet<>();
            for (final TopicPartition tp : partitions) {
                until.put(tp, from.get(tp));
                consumer.seek(tp, from.get(tp));
                if (from.get(tp) < end.get(tp)) {
                    open.add(tp);
                } else {
                    consumer.pause(List.of(tp));
                }
            }
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (!open.isEmpty() && kept.size() < max) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "timed out after "
                                    + timeout
                                    + " reading "
                                    + TopicCatalog.TRANSITIONS
                                    + " ("
                                    + kept.size()
                                    + " transitions so far); is the broker reachable, or lower"
                                    + " --max-transitions");
                }
                final ConsumerRecords<byte[], byte[]> records =
                        consumer.poll(Duration.ofMillis(200));
                for (final TopicPartition tp : records.partitions()) {
                    for (final ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                        if (kept.size() >= max) {
                            break;
                        }
                        if (r.offset() >= end.get(tp)) {
                            break;
                        }
                        take(r);
                        until.put(tp, r.offset() + 1);
                    }
                }
                if (kept.size() >= max) {
                    break;
                }
                for (final TopicPartition tp : List.copyOf(open)) {
                    if (consumer.position(tp, timeout) >= end.get(tp)) {
                        // the end may lie past a transaction marker: the whole snapshot was read
                        until.put(tp, end.get(tp));
                        open.remove(tp);
                        consumer.pause(List.of(tp));
                    }
                }
            }
            final List<OffsetRange> lineage = new ArrayList<>(partitions.size());
            for (final TopicPartition tp : partitions) {
                lineage.add(
                        new OffsetRange(tp.topic(), tp.partition(), from.get(tp), until.get(tp)));
            }
            LOG.info(
                    "Pretraining slice: {} transitions kept of {} read ({} of other envs, {}"
                            + " undecodable), lineage {}",
                    kept.size(),
                    scanned,
                    otherEnvs,
                    undecodable,
                    lineage);
            // Partitions interleave and agents race differently from run to run: ordered by id,
            // the same log always trains the same tokenizer and base model.
            kept.sort(Comparator.comparing(t -> t.getTransitionId().toString()));
            return new PretrainingSlice(kept, lineage, scanned, otherEnvs, undecodable);
        }

        private void take(final ConsumerRecord<byte[], byte[]> r) {
            scanned++;
            final Transition t;
            try {
                t =
                        r.value() == null
                                ? null
                                : serde.deserializer().deserialize(r.topic(), r.value());
            } catch (final RuntimeException e) {
                undecodable++;
                LOG.warn(
                        "Skipping undecodable transition at {}-{}@{}: {}",
                        r.topic(),
                        r.partition(),
                        r.offset(),
                        e.getMessage());
                return;
            }
            if (t == null) {
                undecodable++;
                LOG.warn("Skipping empty record at {}-{}@{}", r.topic(), r.partition(), r.offset());
            } else if (!envs.isEmpty() && !envs.contains(t.getEnv().getName())) {
                otherEnvs++;
            } else {
                kept.add(t);
            }
        }

        private List<TopicPartition> partitions() {
            final List<PartitionInfo> infos =
                    consumer.partitionsFor(TopicCatalog.TRANSITIONS, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException(
                        "topic "
                                + TopicCatalog.TRANSITIONS
                                + " does not exist: produce transitions first (rwml demo, or the"
                                + " environment producers), then run init");
            }
            final List<TopicPartition> tps = new ArrayList<>(infos.size());
            infos.stream()
                    .sorted(Comparator.comparingInt(PartitionInfo::partition))
                    .forEach(p -> tps.add(new TopicPartition(p.topic(), p.partition())));
            return tps;
        }
    }
}
