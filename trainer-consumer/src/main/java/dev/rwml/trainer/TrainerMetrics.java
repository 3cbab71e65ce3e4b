package dev.rwml.trainer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The trainer's Micrometer meters, tagged with the run: steps, groups and tokens trained, groups
 * dropped by reason, dead letters by reason, outage retries, commits without a step, versions
 * published, step and publish latency, and the latest version.
 */
public final class TrainerMetrics {

    private static final String DROPPED = "rwml.trainer.groups.dropped";

    private final Counter steps;
    private final Counter groups;
    private final Counter tokens;
    private final Counter droppedStale;
    private final Counter droppedZeroAdvantage;
    private final Counter droppedNotKept;
    private final Meter.MeterProvider<Counter> deadLetters;
    private final Counter outageRetries;
    private final Counter skippedCommits;
    private final Counter versions;
    private final Timer stepLatency;
    private final Timer publishLatency;
    private final AtomicLong version = new AtomicLong(-1);

    /** Registers the meters of one run. */
    public TrainerMetrics(final MeterRegistry registry, final String run) {
        steps = counter(registry, "rwml.trainer.steps", "Optimizer steps taken", run);
        groups = counter(registry, "rwml.trainer.groups", "Rewarded groups trained on", run);
        tokens = counter(registry, "rwml.trainer.tokens", "Completion tokens trained on", run);
        droppedStale = dropped(registry, run, "stale");
        droppedZeroAdvantage = dropped(registry, run, "zero-advantage");
        droppedNotKept = dropped(registry, run, "not-kept");
        deadLetters =
                Counter.builder("rwml.trainer.dead.letters")
                        .description("Records sent to the run's dead-letter topic, by reason")
                        .tag("run", run)
                        .withRegistry(registry);
        outageRetries =
                counter(
                        registry,
                        "rwml.trainer.outage.retries",
                        "Reads retried because the schema registry was unavailable",
                        run);
        skippedCommits =
                counter(
                        registry,
                        "rwml.trainer.skipped.commits",
                        "Commits of records passed over without a step",
                        run);
        versions =
                counter(
                        registry,
                        "rwml.trainer.versions.published",
                        "Model versions published",
                        run);
        stepLatency =
                Timer.builder("rwml.trainer.step.latency")
                        .description("Time of one optimizer step")
                        .tag("run", run)
                        .register(registry);
        publishLatency =
                Timer.builder("rwml.trainer.publish.latency")
                        .description("Time to publish and commit one model version")
                        .tag("run", run)
                        .register(registry);
        Gauge.builder("rwml.trainer.model.version", version, AtomicLong::get)
                .description("The latest model version published or resumed from")
                .tag("run", run)
                .register(registry);
    }

    private static Counter counter(
            final MeterRegistry registry,
            final String name,
            final String description,
            final String run) {
        return Counter.builder(name).description(description).tag("run", run).register(registry);
    }

    private static Counter dropped(
            final MeterRegistry registry, final String run, final String reason) {
        return Counter.builder(DROPPED)
                .description("Rewarded groups left out of training, by reason")
                .tag("run", run)
                .tag("reason", reason)
                .register(registry);
    }

    /** The version the trainer resumed from. */
    public void version(final long v) {
        version.set(v);
    }

    /** Counts a group left out of training. */
    public void dropped(final GroupVerdict verdict) {
        switch (verdict) {
            case STALE -> droppedStale.increment();
            case ZERO_ADVANTAGE -> droppedZeroAdvantage.increment();
            case NOT_KEPT -> droppedNotKept.increment();
            case TRAIN -> {}
        }
    }

    /** Counts a record of {@code input} sent to the dead-letter topic under its header's reason. */
    public void deadLettered(final String reason, final String input) {
        deadLetters.withTags("reason", reason, "input", input).increment();
    }

    /** Counts a read retried while the schema registry is unavailable. */
    public void outageRetry() {
        outageRetries.increment();
    }

    /** Counts a commit of records passed over without a step. */
    public void skippedCommit() {
        skippedCommits.increment();
    }

    /** Counts one optimizer step: its time and the completion tokens it trained on. */
    public void step(final Duration took, final long trainedTokens) {
        stepLatency.record(took);
        steps.increment();
        tokens.increment(trainedTokens);
    }

    /** Counts the groups of one trained batch. */
    public void trained(final int groupCount) {
        groups.increment(groupCount);
    }

    /** Counts a published version: it becomes the latest, and its publish time is recorded. */
    public void published(final long v, final Duration took) {
        version.set(v);
        versions.increment();
        publishLatency.record(took);
    }
}
