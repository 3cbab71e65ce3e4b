package dev.rwml.filter;

import dev.rwml.events.TransitionDifficulty;
import dev.rwml.runtime.streams.DeadLetterCounter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
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

    /** Records sent to the run's dead-letter topic, tagged by run and reason. */
    public static final String DEAD_LETTERS = "rwml.filter.dead.letters";

    private final Meter.MeterProvider<Counter> transitions;
    private final Timer judgeTime;
    private final Meter.MeterProvider<Counter> deadLetters;

    /** Meters of {@code run} in {@code registry}. */
    public FilterMetrics(final MeterRegistry registry, final String run) {
        this.transitions =
                Counter.builder("rwml.filter.transitions")
                        .description("Transitions judged, by difficulty and keep reason")
                        .tag("run", run)
                        .withRegistry(registry);
        this.judgeTime =
                Timer.builder("rwml.filter.judge.time")
                        .description("Time to sample the K tries of one transition and score them")
                        .tag("run", run)
                        .register(registry);
        this.deadLetters =
                Counter.builder(DEAD_LETTERS)
                        .description(
                                "Records sent to the run's dead-letter topic, by reason and input topic")
                        .tag("run", run)
                        .withRegistry(registry);
    }

    /** Counts a judged transition. */
    public void judged(final TransitionDifficulty verdict, final Duration took) {
        transitions
                .withTags(
                        "difficulty",
                        verdict.getDifficulty().name(),
                        "decision",
                        verdict.getKeepReason())
                .increment();
        judgeTime.record(took);
    }

    /** Counts a record of {@code input} sent to the dead-letter topic under its header's reason. */
    @Override
    public void deadLetter(final String reason, final String input) {
        deadLetters.withTags("reason", reason, "input", input).increment();
    }
}
