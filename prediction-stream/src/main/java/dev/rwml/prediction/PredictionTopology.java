package dev.rwml.prediction;

import dev.rwml.channel.ModelSlot;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.Transition;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.runtime.streams.UniqueTransitions;
import dev.rwml.schemas.topics.RunTopics;
import java.time.Clock;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Builds the prediction topology of one run: a pure function of its inputs, so tests drive it with
 * {@code TopologyTestDriver}.
 *
 * <pre>
 * rwml.transitions            key: transitionId (UTF-8 bytes), value: Transition (read as bytes,
 *       |                     decoded in the processor so bad bytes can be dead-lettered)
 *       v
 * batch-predict               selection, validation, duplicate ids (seen-transition-ids), prompt
 *       |                     fitting; buffered in
 *       |                     prediction-batch-buffer (RocksDB, changelogged); G samples per
 *       |                     transition generated in batches
 *       +--> rwml.&lt;run&gt;.predictions   key: transitionId (the same bytes), value: PredictionGroup
 *       +--> rwml.&lt;run&gt;.dead-letters  key: the original key bytes, value: DeadLetter
 * </pre>
 */
public final class PredictionTopology {

    /**
     * Name of the batch buffer store (its changelog is {@code <application.id>-<name>-changelog}).
     */
    public static final String BUFFER_STORE = "prediction-batch-buffer";

    static final String SOURCE = "transitions-source";
    static final String PROCESSOR = "batch-predict";

    private PredictionTopology() {}

    /**
     * The topics and serdes the topology wires together.
     *
     * @param transitionsTopic the shared transitions log
     * @param topics the run's topics
     * @param transitions reads Transition values (the registry serde)
     * @param predictions writes PredictionGroup values
     * @param deadLetters writes DeadLetter values
     */
    public record Wiring(
            String transitionsTopic,
            RunTopics topics,
            Deserializer<Transition> transitions,
            Serializer<PredictionGroup> predictions,
            Serializer<DeadLetter> deadLetters) {}

    /** Builds the live topology: batches by size and wait, with the newest version. */
    public static Topology build(
            final PredictionConfig config,
            final Wiring wiring,
            final ModelSlot slot,
            final PredictionMetrics metrics,
            final Clock clock) {
        return build(config, wiring, slot, GenerationGate.unpaced(), metrics, clock);
    }

    /** Builds the topology, generating what {@code gate} lets through. */
    public static Topology build(
            final PredictionConfig config,
            final Wiring wiring,
            final ModelSlot slot,
            final GenerationGate gate,
            final PredictionMetrics metrics,
            final Clock clock) {
        final StoreBuilder<KeyValueStore<Long, BufferedRecord>> buffer =
                // Persistent (RocksDB), although the buffer is small: only with a persistent
                // store does Kafka Streams keep its process id in state.dir, so an instance
                // restarted after a kill reuses the dead one's transactional id and aborts its
                // open transaction at once. With an in-memory store the new instance got a new id
                // and its restore and offset fetch waited for that transaction's timeout (5 min).
                Stores.keyValueStoreBuilder(
                                Stores.persistentKeyValueStore(BUFFER_STORE),
                                Serdes.Long(),
                                BufferedRecord.serde())
                        // Short segments let compaction drop flushed entries, so a restore
                        // after a crash reads little more than what is really buffered.
                        .withLoggingEnabled(Map.of("segment.ms", "3600000"));
        final DeadLetterWriter deadLetters =
                new DeadLetterWriter(
                        StageName.PREDICTION, wiring.topics().deadLetters(), metrics, clock);
        final Topology topology = new Topology();
        topology.addSource(
                SOURCE,
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer(),
                wiring.transitionsTopic());
        topology.addProcessor(
                PROCESSOR,
                () ->
                        new BatchingPredictionProcessor(
                                config,
                                BUFFER_STORE,
                                slot,
                                metrics,
                                wiring.transitions(),
                                deadLetters,
                                gate),
                SOURCE);
        topology.addStateStore(buffer, PROCESSOR);
        topology.addStateStore(UniqueTransitions.store(), PROCESSOR);
        topology.addSink(
                BatchingPredictionProcessor.PREDICTIONS_SINK,
                wiring.topics().predictions().name(),
                new ByteArraySerializer(),
                narrow(wiring.predictions(), PredictionGroup.class),
                PROCESSOR);
        topology.addSink(
                BatchingPredictionProcessor.DEAD_LETTER_SINK,
                wiring.topics().deadLetters().name(),
                new ByteArraySerializer(),
                narrow(wiring.deadLetters(), DeadLetter.class),
                PROCESSOR);
        return topology;
    }

    /** Lets a sink typed for all events accept only its own event class. */
    private static <T extends SpecificRecord> Serializer<SpecificRecord> narrow(
            final Serializer<T> serializer, final Class<T> type) {
        return new Serializer<>() {
            @Override
            public byte[] serialize(final String topic, final SpecificRecord value) {
                if (value != null && !type.isInstance(value)) {
                    throw new IllegalStateException(
                            "sink for "
                                    + topic
                                    + " expects "
                                    + type.getSimpleName()
                                    + ", got "
                                    + value.getClass().getSimpleName());
                }
                return serializer.serialize(topic, type.cast(value));
            }

            @Override
            public void close() {
                serializer.close();
            }
        };
    }
}
