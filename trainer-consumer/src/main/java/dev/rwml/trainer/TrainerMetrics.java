package dev.rwml.trainer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicLong;

/** The trainer's Micrometer meters, tagged with the run. */
final class TrainerMetrics {

    final Counter steps;
    final Counter groups;
    final Counter tokens;
    final Counter droppedStale;
    final Counter skippedZeroAdvantage;
    final Counter skippedNotKept;
    final Counter deadLettered;
    final Counter outageRetries;
    final Counter skippedCommits;
    final Counter versions;
    final Timer stepLatency;
    final Timer publishLatency;
    private final AtomicLong version = new AtomicLong(-1);

    TrainerMetrics(final MeterRegistry registry, final String run) {
        steps = registry.counter("rwml.trainer.steps", "run", run);
        groups = registry.counter("rwml.trainer.groups", "run", run);
        tokens = registry.counter("rwml.trainer.tokens", "run", run);
        droppedStale =
                registry.counter("rwml.trainer.groups.dropped", "run", run, "reason", "stale");
        skippedZeroAdvantage =
                registry.counter(
                        "rwml.trainer.groups.dropped", "run", run, "reason", "zero-advantage");
        skippedNotKept =
                registry.counter("rwml.trainer.groups.dropped", "run", run, "reason", "not-kept");
        deadLettered = registry.counter("rwml.trainer.dead.letters", "run", run);
        outageRetries = registry.counter("rwml.trainer.outage.retries", "run", run);
        skippedCommits = registry.counter("rwml.trainer.skipped.commits", "run", run);
        versions = registry.counter("rwml.trainer.versions.published", "run", run);
        stepLatency = registry.timer("rwml.trainer.step.latency", "run", run);
        publishLatency = registry.timer("rwml.trainer.publish.latency", "run", run);
        Gauge.builder("rwml.trainer.model.version", version, AtomicLong::get)
                .tag("run", run)
                .register(registry);
    }

    void version(final long v) {
        version.set(v);
    }

    void dropped(final GroupVerdict verdict) {
        switch (verdict) {
            case STALE -> droppedStale.increment();
            case ZERO_ADVANTAGE -> skippedZeroAdvantage.increment();
            case NOT_KEPT -> skippedNotKept.increment();
            case TRAIN -> {}
        }
    }
}
