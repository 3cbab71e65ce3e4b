package dev.rwml.prediction;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the prediction stage may generate now, and with which version.
 *
 * <p>The live stage is {@linkplain #unpaced() unpaced}: it generates a batch when {@code
 * batch.size} transitions are buffered or the oldest has waited {@code batch.max.wait}, with the
 * newest version. A {@linkplain #paced() paced} gate lets a replay train the same models on any
 * machine: it opens one {@link Round} of the input at a time, and the stage generates exactly that
 * round's transitions, in offset order, in batches of {@code batch.size} with one partial batch
 * once the round's last record was read, and only while the version named by the round serves.
 * Nothing of a round depends on timing: neither its batches (so neither its sampling seeds) nor the
 * version that samples it. Transitions read beyond the open round wait in the buffer.
 *
 * <p>A paced gate also keeps a ledger of the input records the stage has settled: emitted as a
 * group, or passed over for good (dead-lettered, or skipped by {@code select.envs} and the like),
 * so that whoever opens rounds can tell when one is done and how many groups it must then find
 * committed downstream. The ledger is the stage's memory, not Kafka's: a group emitted in a
 * transaction that later aborts is emitted again and counted once.
 */
public final class GenerationGate {

    private final boolean paced;
    private volatile Round round;
    private final Map<Integer, Map<Long, Boolean>> ledger = new ConcurrentHashMap<>();

    private GenerationGate(final boolean paced) {
        this.paced = paced;
    }

    /** No gate: the live rules (batch.size, batch.max.wait, the newest version). */
    public static GenerationGate unpaced() {
        return new GenerationGate(false);
    }

    /** A gate that starts closed: nothing is generated until a round is {@linkplain #open}. */
    public static GenerationGate paced() {
        return new GenerationGate(true);
    }

    /** Whether rounds govern generation. */
    public boolean isPaced() {
        return paced;
    }

    /**
     * Opens {@code next}, replacing the round open now; the stage should have generated all of that
     * one first.
     *
     * @throws IllegalStateException on an unpaced gate
     */
    public void open(final Round next) {
        if (!paced) {
            throw new IllegalStateException("an unpaced gate has no rounds to open");
        }
        round = next;
    }

    /** Closes the gate: nothing more is generated until the next round opens. */
    public void close() {
        round = null;
    }

    /** The round open now; empty while none is (or the gate is unpaced). */
    public Optional<Round> current() {
        return Optional.ofNullable(round);
    }

    /**
     * Notes that the stage settled the record at {@code offset} of {@code partition}: emitted its
     * group ({@code emitted}) or passed over it for good.
     */
    public void settled(final int partition, final long offset, final boolean emitted) {
        if (paced) {
            ledger.computeIfAbsent(partition, p -> new ConcurrentHashMap<>()).put(offset, emitted);
        }
    }

    /** Whether the record at {@code offset} of {@code partition} was emitted or passed over. */
    public boolean isSettled(final int partition, final long offset) {
        final Map<Long, Boolean> settled = ledger.get(partition);
        return settled != null && settled.containsKey(offset);
    }

    /** How many records the ledger holds as emitted as groups. */
    public long emitted() {
        long emitted = 0;
        for (final Map<Long, Boolean> settled : ledger.values()) {
            emitted += settled.values().stream().filter(e -> e).count();
        }
        return emitted;
    }

    /**
     * Empties the ledger, before the same input is read again (a replay's next epoch); the stage
     * must not be generating.
     */
    public void clearLedger() {
        ledger.clear();
    }

    /**
     * One round of the input: on each partition, the records up to and including its last offset
     * not yet generated, sampled by one version.
     *
     * @param index the round's number, counted from 0 over the whole replay
     * @param version the model version that must sample it
     * @param lastOffsets per input partition, the offset of the round's last record; a partition
     *     not named has no record in this round
     */
    public record Round(long index, long version, Map<Integer, Long> lastOffsets) {

        /** Copies the offsets. */
        public Round {
            if (index < 0 || version < 0) {
                throw new IllegalArgumentException(
                        "a round's index and version are at least 0, got "
                                + index
                                + ", "
                                + version);
            }
            lastOffsets = Map.copyOf(new TreeMap<>(lastOffsets));
        }

        /** The offset of the round's last record on {@code partition}, empty when it has none. */
        public OptionalLong last(final int partition) {
            final Long last = lastOffsets.get(partition);
            return last == null ? OptionalLong.empty() : OptionalLong.of(last);
        }
    }
}
