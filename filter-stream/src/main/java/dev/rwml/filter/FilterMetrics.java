package dev.rwml.filter;

import dev.rwml.events.TransitionDifficulty;
import dev.rwml.runtime.streams.DeadLetterCounter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The filter stage's meters: transitions judged by difficulty and decision, time, dead letters; the
 * embedding cache reports under {@link #EMBEDDING_CACHE}.
 */
public final class FilterMetrics implements DeadLetterCounter {

    /** The {@code cache} tag of the stage's embedding cache on Micrometer's cache meters. */
    public static final String EMBEDDING_CACHE = "rwml.filter.embedding";

    private final MeterRegistry registry;
    private final String run;
    private final Timer judgeTime;

    /** Meters of {@code run} in {@code registry}. */
    public FilterMetrics(final MeterRegistry registry, final String run) {
        this.registry = registry;
        this.run = run;
        this.judgeTime =
                Timer.builder("rwml.filter.judge.time")
                        .description("Time to sample the K tries of one transition and score them")
                        .tag("run", run)
                        .register(registry);
    }

    /** Counts a judged transition. */
    public void judged(final TransitionDifficulty verdict, final Duration took) {
        Counter.builder("rwml.filter.transitions")
                .description("Transitions judged, by difficulty and keep reason")
                .tag("run", run)
                .tag("difficulty", verdict.getDifficulty().name())
                .tag("decision", verdict.getKeepReason())
                .register(registry)
                .increment();
        judgeTime.record(took);
    }

    @Override
    public void deadLetter(final String reason) {
        Counter.builder("rwml.filter.dead.letters")
                .description("Records sent to the run's dead-letter topic, by reason")
                .tag("run", run)
                .tag("reason", reason)
                .register(registry)
                .increment();
    }
}
