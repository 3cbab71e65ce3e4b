package dev.rwml.worldmodel.model;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.Map;

/**
 * The time of decode steps split by part, for the benchmarks that compare a step with the machine's
 * bounds: a model or generator given one calls {@link #lap} after each part, and only the time
 * between a {@link #begin} and an {@link #end} counts (prefill is left out). Parts are CPU time of
 * the calling thread: with one intra-op thread the engine computes every op on it before returning,
 * so a lap is that part's cost, and time the thread waits for a core that other processes hold does
 * not count (the step's wall time is kept beside). One thread.
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

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long[] nanos = new long[Part.values().length];
    private long total;
    private long begun;
    private long wallBegun;
    private long wall;
    private long last;
    private int steps;
    private boolean recording;

    /** Starts timing one step. */
    public void begin() {
        recording = true;
        wallBegun = System.nanoTime();
        begun = cpuNanos();
        last = begun;
    }

    /**
     * Adds the time since the last lap (or the step's start) to {@code part}, while a step runs.
     */
    public void lap(final Part part) {
        if (!recording) {
            return;
        }
        final long now = cpuNanos();
        nanos[part.ordinal()] += now - last;
        last = now;
    }

    /** Ends the step: what followed the last lap counts as {@link Part#OTHER}. */
    public void end() {
        lap(Part.OTHER);
        total += last - begun;
        wall += System.nanoTime() - wallBegun;
        steps++;
        recording = false;
    }

    /** Steps timed so far. */
    public int steps() {
        return steps;
    }

    /** Mean CPU milliseconds per step of the whole step. */
    public double millisPerStep() {
        return steps == 0 ? 0 : total / 1e6 / steps;
    }

    /** Mean wall milliseconds per step: above {@link #millisPerStep} when others held the cores. */
    public double wallMillisPerStep() {
        return steps == 0 ? 0 : wall / 1e6 / steps;
    }

    /** CPU nanoseconds the calling thread has run. */
    public static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** Mean CPU milliseconds per step of each part, in {@link Part} order; they sum to the step. */
    public Map<Part, Double> partsPerStep() {
        final Map<Part, Double> out = new EnumMap<>(Part.class);
        for (final Part p : Part.values()) {
            out.put(p, steps == 0 ? 0 : nanos[p.ordinal()] / 1e6 / steps);
        }
        return out;
    }
}
