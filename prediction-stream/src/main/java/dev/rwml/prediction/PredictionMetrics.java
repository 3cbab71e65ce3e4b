package dev.rwml.prediction;

import dev.rwml.channel.ModelSlot;
import dev.rwml.runtime.streams.DeadLetterCounter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * The prediction stage's Micrometer meters, tagged with the run: groups and generated tokens (rates
 * give groups/s and tokens/s), batch sizes, generation latency, the serving model version, dead
 * letters by reason and transitions skipped by the selection.
 */
public final class PredictionMetrics implements DeadLetterCounter {

    /** Records sent to the dead-letter topic, tagged by the letter's reason. */
    public static final String DEAD_LETTERS = "rwml.prediction.dead.letters";

    /** Transitions the stage passed over, tagged by why. */
    public static final String SKIPPED = "rwml.prediction.skipped";

    /** The skip reason of a transition past the stop offset a replay set. */
    public static final String AFTER_STOP = "after-stop";

    private final Counter groups;
    private final Counter tokens;
    private final Counter truncated;
    private final DistributionSummary batchSize;
    private final Timer generation;
    private final Meter.MeterProvider<Counter> deadLetters;
    private final Meter.MeterProvider<Counter> skipped;

    /** Registers the meters; the version gauge reads the slot (-1 before version 0 arrives). */
    public PredictionMetrics(final MeterRegistry registry, final String run, final ModelSlot slot) {
        this.groups =
                Counter.builder("rwml.prediction.groups")
                        .description("prediction groups emitted")
                        .tag("run", run)
                        .register(registry);
        this.tokens =
                Counter.builder("rwml.prediction.tokens")
                        .description("completion tokens generated")
                        .tag("run", run)
                        .register(registry);
        this.truncated =
                Counter.builder("rwml.prediction.history.truncated")
                        .description("prompts whose oldest history turns were dropped to fit")
                        .tag("run", run)
                        .register(registry);
        this.batchSize =
                DistributionSummary.builder("rwml.prediction.batch.size")
                        .description("transitions generated together")
                        .tag("run", run)
                        .register(registry);
        this.generation =
                Timer.builder("rwml.prediction.generation")
                        .description("wall time of one batch's generation")
                        .tag("run", run)
                        .register(registry);
        this.deadLetters =
                Counter.builder(DEAD_LETTERS)
                        .description("records sent to the run's dead-letter topic, by reason")
                        .tag("run", run)
                        .withRegistry(registry);
        this.skipped =
                Counter.builder(SKIPPED)
                        .description("transitions passed over, by reason")
                        .tag("run", run)
                        .withRegistry(registry);
        Gauge.builder("rwml.prediction.model.version", slot, s -> s.version().orElse(-1))
                .description("the model version serving new batches")
                .tag("run", run)
                .register(registry);
    }

    /** Counts one batch: its size, generation time, groups and generated tokens. */
    public void batch(final int size, final long nanos, final long generatedTokens) {
        batchSize.record(size);
        generation.record(nanos, TimeUnit.NANOSECONDS);
        groups.increment(size);
        tokens.increment(generatedTokens);
    }

    /** Counts a prompt that fit only after dropping history. */
    public void historyTruncated() {
        truncated.increment();
    }

    /** Counts a record of {@code input} sent to the dead-letter topic under its header's reason. */
    @Override
    public void deadLetter(final String reason, final String input) {
        deadLetters.withTags("reason", reason, "input", input).increment();
    }

    /** Counts a transition passed over (reason env, split or {@link #AFTER_STOP}). */
    public void skipped(final String reason) {
        skipped.withTag("reason", reason).increment();
    }

    /** Groups emitted so far. */
    public double groupCount() {
        return groups.count();
    }

    /** Completion tokens generated so far. */
    public double tokenCount() {
        return tokens.count();
    }
}
