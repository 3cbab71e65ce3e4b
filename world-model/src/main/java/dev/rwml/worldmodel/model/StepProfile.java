package dev.rwml.worldmodel.model;

import java.util.EnumMap;
import java.util.Map;

/**
 * Wall time of decode steps split by part, for the benchmarks that compare a step with the
 * machine's bounds: a model or generator given one calls {@link #lap} after each part, and only the
 * time between a {@link #begin} and an {@link #end} counts (prefill is left out). On the CPU every
 * engine op returns when its result is computed, so a lap is that part's cost. One thread.
 */
public final class StepProfile {

    /** What a decode step spends its time on. */
    public enum Part {
        /**
         * The linear layers of attention and MLP (q, k, v, o, gate, up, down), adapters included.
         */
        PROJECTIONS,
        /** Scores, softmax and values of attention, with KV-cache writes and head grouping. */
        ATTENTION,
        /** The final norm and the LM head. */
        LM_HEAD,
        /** Log-softmax (and softmax at the temperature) and the copy of its rows to Java. */
        NORMALISE,
        /** Drawing each row's token in Java. */
        SAMPLER,
        /** Everything else: embeddings, norms, rotary, residuals, arrays, JNI. */
        OTHER
    }

    private final long[] nanos = new long[Part.values().length];
    private long total;
    private long fastest = Long.MAX_VALUE;
    private long begun;
    private long last;
    private int steps;
    private boolean recording;

    /** Starts timing one step. */
    public void begin() {
        recording = true;
        begun = System.nanoTime();
        last = begun;
    }

    /**
     * Adds the time since the last lap (or the step's start) to {@code part}, while a step runs.
     */
    public void lap(final Part part) {
        if (!recording) {
            return;
        }
        final long now = System.nanoTime();
        nanos[part.ordinal()] += now - last;
        last = now;
    }

    /** Ends the step: what followed the last lap counts as {@link Part#OTHER}. */
    public void end() {
        lap(Part.OTHER);
        total += last - begun;
        fastest = Math.min(fastest, last - begun);
        steps++;
        recording = false;
    }

    /** Steps timed so far. */
    public int steps() {
        return steps;
    }

    /** Mean milliseconds per step of the whole step. */
    public double millisPerStep() {
        return steps == 0 ? 0 : total / 1e6 / steps;
    }

    /**
     * Milliseconds of the fastest step: on a machine others share, the closest to what the step
     * costs alone.
     */
    public double fastestMillis() {
        return steps == 0 ? 0 : fastest / 1e6;
    }

    /** Mean milliseconds per step of each part, in {@link Part} order; they sum to the step. */
    public Map<Part, Double> partsPerStep() {
        final Map<Part, Double> out = new EnumMap<>(Part.class);
        for (final Part p : Part.values()) {
            out.put(p, steps == 0 ? 0 : nanos[p.ordinal()] / 1e6 / steps);
        }
        return out;
    }
}
