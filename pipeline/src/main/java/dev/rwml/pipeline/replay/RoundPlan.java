package dev.rwml.pipeline.replay;

import dev.rwml.prediction.GenerationGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A slice cut into the rounds of a paced replay: round {@code k} of {@code K} holds, on each
 * partition, the {@code k}-th of {@code K} nearly equal shares of that partition's records, so
 * every round has about the chosen number of transitions, drawn from the partitions in proportion
 * to what each holds. The cut depends on the slice alone.
 *
 * @param rounds per round, per partition, the offsets of the round's records in order
 */
public record RoundPlan(List<Map<Integer, List<Long>>> rounds) {

    /** Copies the rounds. */
    public RoundPlan {
        rounds = List.copyOf(rounds);
    }

    /**
     * Cuts {@code offsets} (per partition, the offsets of the slice's records in order) into rounds
     * of about {@code roundSize} transitions.
     *
     * @throws IllegalArgumentException when {@code roundSize} is below 1
     */
    public static RoundPlan of(final Map<Integer, List<Long>> offsets, final int roundSize) {
        if (roundSize < 1) {
            throw new IllegalArgumentException(
                    "a round holds at least 1 transition, got " + roundSize);
        }
        final long total = offsets.values().stream().mapToLong(List::size).sum();
        final int count = (int) Math.max(1, (total + roundSize - 1) / roundSize);
        final List<Map<Integer, List<Long>>> rounds = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            final Map<Integer, List<Long>> round = new TreeMap<>();
            for (final Map.Entry<Integer, List<Long>> e : new TreeMap<>(offsets).entrySet()) {
                final int n = e.getValue().size();
                final int from = (int) ((long) k * n / count);
                final int until = (int) ((long) (k + 1) * n / count);
                if (until > from) {
                    round.put(e.getKey(), List.copyOf(e.getValue().subList(from, until)));
                }
            }
            rounds.add(Map.copyOf(round));
        }
        return new RoundPlan(rounds);
    }

    /** How many rounds the slice has. */
    public int size() {
        return rounds.size();
    }

    /** The transitions of round {@code k}. */
    public int transitions(final int k) {
        return rounds.get(k).values().stream().mapToInt(List::size).sum();
    }

    /** The transitions of the rounds before round {@code k} ({@code k} may be {@link #size()}). */
    public long transitionsBefore(final int k) {
        long n = 0;
        for (int i = 0; i < k; i++) {
            n += transitions(i);
        }
        return n;
    }

    /** Whether the prediction stage settled every record of round {@code k}. */
    public boolean settled(final int k, final GenerationGate gate) {
        for (final Map.Entry<Integer, List<Long>> e : rounds.get(k).entrySet()) {
            for (final long offset : e.getValue()) {
                if (!gate.isSettled(e.getKey(), offset)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** How many records of the whole plan the prediction stage settled. */
    public long settledCount(final GenerationGate gate) {
        long n = 0;
        for (final Map<Integer, List<Long>> round : rounds) {
            for (final Map.Entry<Integer, List<Long>> e : round.entrySet()) {
                for (final long offset : e.getValue()) {
                    if (gate.isSettled(e.getKey(), offset)) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** Per partition, the offset of round {@code k}'s last record (partitions it holds only). */
    public Map<Integer, Long> lastOffsets(final int k) {
        final Map<Integer, Long> last = new TreeMap<>();
        rounds.get(k).forEach((p, offsets) -> last.put(p, offsets.get(offsets.size() - 1)));
        return last;
    }
}
