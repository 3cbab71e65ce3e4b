package dev.rwml.runtime.start;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Where a stage that reads a bounded slice stops: per partition of its input topic, the first
 * offset it does not take ({@code 0:120,1:98}); a partition not named has no end. Replay bounds the
 * prediction and filter stages with it.
 *
 * @param offsets the first offset not taken, by partition
 */
public record StopAt(Map<Integer, Long> offsets) {

    /** The setting of the stages that take it. */
    public static final String SETTING = "stop.at";

    /** No end on any partition. */
    public static final StopAt NONE = new StopAt(Map.of());

    /** Copies the offsets, sorted by partition. */
    public StopAt {
        offsets = Collections.unmodifiableMap(new TreeMap<>(offsets));
    }

    /** Declares {@link #SETTING}, empty by default (no end). */
    public static ConfigDef define(final ConfigDef def) {
        return def.define(
                SETTING,
                ConfigDef.Type.STRING,
                "",
                (name, value) -> parse(value.toString()),
                ConfigDef.Importance.LOW,
                "Per partition of the input topic, the first offset not taken (0:120,1:98);"
                        + " empty: no end. Used by replay.");
    }

    /**
     * Parses {@code partition:offset} pairs separated by commas; blank gives {@link #NONE}.
     *
     * @throws ConfigException explaining the format
     */
    public static StopAt parse(final String text) {
        final Map<Integer, Long> offsets = new TreeMap<>();
        if (text == null || text.isBlank()) {
            return NONE;
        }
        for (final String item : text.split(",")) {
            final String[] parts = item.trim().split(":");
            try {
                if (parts.length != 2) {
                    throw new NumberFormatException(item);
                }
                final int partition = Integer.parseInt(parts[0].trim());
                final long offset = Long.parseLong(parts[1].trim());
                if (partition < 0 || offset < 0) {
                    throw new NumberFormatException(item);
                }
                offsets.put(partition, offset);
            } catch (NumberFormatException e) {
                throw new ConfigException(
                        SETTING,
                        text,
                        "expected partition:offset pairs separated by commas, e.g. 0:120,1:98");
            }
        }
        return new StopAt(offsets);
    }

    /** Whether the record at {@code offset} of {@code partition} lies at or after the stop. */
    public boolean isPast(final int partition, final long offset) {
        final Long stop = offsets.get(partition);
        return stop != null && offset >= stop;
    }

    /** The offsets as the setting writes them: {@code 0:120,1:98}; empty for no end. */
    public String text() {
        final StringBuilder s = new StringBuilder();
        offsets.forEach((p, o) -> s.append(s.isEmpty() ? "" : ",").append(p).append(':').append(o));
        return s.toString();
    }

    /** A DSL step that passes on the records before the stop and drops the others. */
    public <K, V> FixedKeyProcessorSupplier<K, V, V> before() {
        return new FixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<K, V, V> get() {
                return new Before<>(StopAt.this);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of();
            }
        };
    }

    private static final class Before<K, V> implements FixedKeyProcessor<K, V, V> {
        private final StopAt stop;
        private FixedKeyProcessorContext<K, V> context;

        Before(final StopAt stop) {
            this.stop = stop;
        }

        @Override
        public void init(final FixedKeyProcessorContext<K, V> context) {
            this.context = context;
        }

        @Override
        public void process(final FixedKeyRecord<K, V> record) {
            final boolean past =
                    context.recordMetadata()
                            .map(m -> stop.isPast(m.partition(), m.offset()))
                            .orElse(false);
            if (!past) {
                context.forward(record);
            }
        }
    }
}
