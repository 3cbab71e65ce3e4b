package dev.rwml.runtime.streams;

import dev.rwml.events.Transition;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Transition ids are unique on {@code rwml.transitions}: a second record with an id already read
 * would be predicted, judged and rewarded twice (and the reward join pairs each prediction with
 * both). The stages that read transitions keep every id they took with where they read it
 * (partition and offset) in a changelogged store, in the same transactions as their output, and
 * refuse a record whose id was read before from another offset. Reading the same record again (a
 * replay epoch, a restore) is not a duplicate.
 *
 * <p>The store holds one entry per transition taken, about 40 bytes (RocksDB, compacted changelog):
 * 40 MB per million transitions.
 */
public final class UniqueTransitions {

    /** Name of the store (its changelog is {@code <application.id>-<name>-changelog}). */
    public static final String STORE = "seen-transition-ids";

    private UniqueTransitions() {}

    /** The persistent, changelogged store of seen ids. */
    public static StoreBuilder<KeyValueStore<String, String>> store() {
        return Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.String())
                .withLoggingEnabled(Map.of());
    }

    /**
     * Records that {@code id} was read at {@code meta}'s partition and offset and returns null, or,
     * when it was read before from another record, returns why this one is refused.
     */
    public static String duplicateReason(
            final KeyValueStore<String, String> seen, final String id, final RecordMetadata meta) {
        final String here = meta.partition() + ":" + meta.offset();
        final String first = seen.putIfAbsent(id, here);
        if (first == null || first.equals(here)) {
            return null;
        }
        final String[] at = first.split(":", 2);
        return "duplicate transition id "
                + id
                + ": first read at partition "
                + at[0]
                + " offset "
                + at[1]
                + ", again at partition "
                + meta.partition()
                + " offset "
                + meta.offset()
                + "; every transition needs its own id (env/episode/step)";
    }

    /**
     * A DSL step that passes each transition on once and throws on a duplicate, which the stage's
     * processing-exception handler dead-letters with the reason. Its store is connected through
     * {@link FixedKeyProcessorSupplier#stores()}.
     */
    public static FixedKeyProcessorSupplier<String, Transition, Transition> check() {
        return new FixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<String, Transition, Transition> get() {
                return new Check();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(store());
            }
        };
    }

    private static final class Check implements FixedKeyProcessor<String, Transition, Transition> {
        private FixedKeyProcessorContext<String, Transition> context;
        private KeyValueStore<String, String> seen;

        @Override
        public void init(final FixedKeyProcessorContext<String, Transition> context) {
            this.context = context;
            this.seen = context.getStateStore(STORE);
        }

        @Override
        public void process(final FixedKeyRecord<String, Transition> record) {
            if (record.value() == null) {
                // a tombstone: the stage's own check dead-letters it with its reason
                context.forward(record);
                return;
            }
            final RecordMetadata meta =
                    context.recordMetadata()
                            .orElseThrow(
                                    () -> new IllegalStateException("records come from a topic"));
            final String reason = duplicateReason(seen, record.value().getTransitionId(), meta);
            if (reason != null) {
                throw new IllegalArgumentException(reason);
            }
            context.forward(record);
        }
    }
}
