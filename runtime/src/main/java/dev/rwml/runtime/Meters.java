package dev.rwml.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;

/** Reads the stages' counters back from a meter registry, for progress lines, reports and tests. */
public final class Meters {

    private Meters() {}

    /**
     * The sum of the counters called {@code name} of {@code run} over their other tags (reason,
     * difficulty, ...); 0 while none is registered.
     */
    public static double total(final MeterRegistry registry, final String name, final String run) {
        return total(registry.find(name).tag("run", run));
    }

    /** The sum of the counters and function counters a search finds; 0 when it finds none. */
    public static double total(final Search search) {
        return search.counters().stream().mapToDouble(Counter::count).sum()
                + search.functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
    }
}
