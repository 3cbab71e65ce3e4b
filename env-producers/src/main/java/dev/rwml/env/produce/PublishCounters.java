package dev.rwml.env.produce;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Micrometer counters of published episodes, tagged with {@code env} and {@code source} ({@code
 * run} or {@code import}): {@code rwml.env.episodes}, {@code rwml.env.transitions} (acknowledged)
 * and {@code rwml.env.send.errors}.
 */
final class PublishCounters {

    private final MeterRegistry meters;
    private final String source;
    private final Map<String, Counter[]> counters = new ConcurrentHashMap<>();

    PublishCounters(final MeterRegistry meters, final String source) {
        this.meters = meters;
        this.source = source;
    }

    void episode(final String env) {
        of(env)[0].increment();
    }

    void acknowledged(final String env, final int transitions) {
        of(env)[1].increment(transitions);
    }

    void error(final String env) {
        of(env)[2].increment();
    }

    private Counter[] of(final String env) {
        return counters.computeIfAbsent(
                env,
                e ->
                        new Counter[] {
                            meters.counter("rwml.env.episodes", "env", e, "source", source),
                            meters.counter("rwml.env.transitions", "env", e, "source", source),
                            meters.counter("rwml.env.send.errors", "env", e, "source", source)
                        });
    }
}
