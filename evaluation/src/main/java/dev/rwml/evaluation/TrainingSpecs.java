package dev.rwml.evaluation;

import dev.rwml.events.NextStateKind;
import dev.rwml.events.RewardSpecRef;
import dev.rwml.events.RewardedGroup;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.score.RewardMethod;
import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.RewardSpecTable;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The reward specs a run trained with, read back from the rewarded groups on {@code
 * rwml.<run>.rewards}: each group records the spec it was scored with, per environment and
 * next-state kind. A run's reward stage configuration may differ from the paper's defaults (the
 * tiny demo rewards text at cosine 0.6), so the pass rate "at the training spec" must use these.
 */
public final class TrainingSpecs {

    /** Enough groups to meet every (environment, kind) a run scores. */
    private static final int MAX_GROUPS = 2_000;

    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private TrainingSpecs() {}

    /**
     * The specs seen in the first groups of each partition of the run's rewards topic, over the
     * paper's defaults for kinds never seen; empty when the run has no rewarded group yet.
     */
    public static Optional<RewardSpecTable> read(final Connection connection, final String run) {
        final RunTopics topics = TopicCatalog.defaults().run(run);
        final String topic = topics.rewards().name();
        final EventSerde<RewardedGroup> serde =
                topics.rewards().valueSerde(connection.registryConfig());
        final var deserializer = serde.deserializer();
        final Map<String, Object> config =
                connection.readCommittedConsumerConfig(
                        "rwml-eval-specs-" + run,
                        Map.of(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false));
        final Map<String, RewardSpec> seen = new LinkedHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            final var infos = consumer.partitionsFor(topic, TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                return Optional.empty();
            }
            final List<TopicPartition> partitions =
                    infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TIMEOUT);
            final long started = System.nanoTime();
            int read = 0;
            while (read < MAX_GROUPS
                    && System.nanoTime() - started < TIMEOUT.toNanos()
                    && partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    read++;
                    final RewardedGroup g = deserializer.deserialize(topic, r.value());
                    seen.putIfAbsent(
                            g.getEnv().getName() + "/" + g.getNextKind().name(),
                            spec(g.getRewardSpec()));
                }
            }
        }
        return seen.isEmpty() ? Optional.empty() : Optional.of(table(seen));
    }

    /** A table of the specs seen, keyed {@code env/KIND}: kind-wide where every env agrees. */
    static RewardSpecTable table(final Map<String, RewardSpec> seen) {
        final RewardSpecTable defaults = RewardSpecTable.paperDefaults();
        final Map<NextStateKind, RewardSpec> byKind = new EnumMap<>(defaults.byKind());
        final Map<NextStateKind, RewardSpec> first = new EnumMap<>(NextStateKind.class);
        seen.forEach(
                (key, spec) ->
                        first.putIfAbsent(
                                NextStateKind.valueOf(key.substring(key.lastIndexOf('/') + 1)),
                                spec));
        byKind.putAll(first);
        final Map<String, RewardSpec> byEnv = new LinkedHashMap<>();
        seen.forEach(
                (key, spec) -> {
                    final NextStateKind kind =
                            NextStateKind.valueOf(key.substring(key.lastIndexOf('/') + 1));
                    if (!spec.equals(byKind.get(kind))) {
                        byEnv.put(key, spec);
                    }
                });
        return new RewardSpecTable(byKind, byEnv);
    }

    private static RewardSpec spec(final RewardSpecRef ref) {
        return new RewardSpec(RewardMethod.parse(ref.getMethod()), ref.getThreshold());
    }
}
