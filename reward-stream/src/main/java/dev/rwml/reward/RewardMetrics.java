package dev.rwml.reward;

import dev.rwml.runtime.Meters;
import dev.rwml.runtime.streams.DeadLetterCounter;
import dev.rwml.scoring.group.KeepDecision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The reward stage's Micrometer meters, tagged with the run: groups rewarded (rate = groups/s) by
 * difficulty and keep reason, the similarity and pass-rate distributions, join misses, late records
 * and dead letters by reason; the embedding cache reports under {@link #EMBEDDING_CACHE}.
 */
public final class RewardMetrics implements DeadLetterCounter {

    /** The {@code cache} tag of the stage's embedding cache on Micrometer's cache meters. */
    public static final String EMBEDDING_CACHE = "rwml.reward.embedding";

    /** Rewarded groups, tagged by difficulty, kept and keep reason. */
    public static final String GROUPS = "rwml.reward.groups";

    /** Records sent to the dead-letter topic, tagged by the letter's reason. */
    public static final String DEAD_LETTERS = "rwml.reward.dead.letters";

    private static final double[] SIMILARITY_BUCKETS = {
        0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0
    };

    private final MeterRegistry registry;
    private final String run;
    private final Timer scoring;
    private final DistributionSummary passRate;
    private final Meter.MeterProvider<Counter> groups;
    private final Meter.MeterProvider<DistributionSummary> similarity;
    private final Counter joinMisses;
    private final Meter.MeterProvider<Counter> late;
    private final Counter transitionsFiltered;
    private final Meter.MeterProvider<Counter> deadLetters;

    /** Registers the meters of one run. */
    public RewardMetrics(final MeterRegistry registry, final String run) {
        this.registry = registry;
        this.run = run;
        this.scoring =
                Timer.builder("rwml.reward.scoring")
                        .description("Time to score one prediction group")
                        .tag("run", run)
                        .publishPercentiles(0.5, 0.99)
                        .register(registry);
        this.passRate =
                DistributionSummary.builder("rwml.reward.pass.rate")
                        .description("Share of samples with reward 1, per group")
                        .tag("run", run)
                        .serviceLevelObjectives(0.25, 0.5, 0.75, 1.0)
                        .register(registry);
        this.groups =
                Counter.builder(GROUPS)
                        .description("Rewarded groups emitted, by difficulty and keep reason")
                        .tag("run", run)
                        .withRegistry(registry);
        this.similarity =
                DistributionSummary.builder("rwml.reward.similarity")
                        .description("Similarity of predicted to observed next state")
                        .tag("run", run)
                        .serviceLevelObjectives(SIMILARITY_BUCKETS)
                        .withRegistry(registry);
        this.joinMisses =
                Counter.builder("rwml.reward.join.misses")
                        .description("Prediction groups with no transition within the join window")
                        .tag("run", run)
                        .register(registry);
        this.late =
                Counter.builder("rwml.reward.late")
                        .description(
                                "Records older than the join window and grace when they arrived")
                        .tag("run", run)
                        .withRegistry(registry);
        this.transitionsFiltered =
                Counter.builder("rwml.reward.transitions.filtered")
                        .description("Transitions of environments the run does not use")
                        .tag("run", run)
                        .register(registry);
        this.deadLetters =
                Counter.builder(DEAD_LETTERS)
                        .description(
                                "Records sent to the run's dead-letter topic, by reason and input topic")
                        .tag("run", run)
                        .withRegistry(registry);
    }

    /** Counts one rewarded group with its difficulty and keep decision. */
    public void groupRewarded(
            final String difficulty,
            final KeepDecision decision,
            final double groupPassRate,
            final Duration took) {
        groups.withTags(
                        "difficulty",
                        difficulty,
                        "kept",
                        Boolean.toString(decision.kept()),
                        "reason",
                        decision.reason())
                .increment();
        passRate.record(groupPassRate);
        scoring.record(took);
    }

    /** Records one sample's similarity under a method. */
    public void similarity(final String method, final double value) {
        similarity.withTag("method", method).record(value);
    }

    /** Counts a prediction group that found no transition within the join window. */
    public void joinMiss() {
        joinMisses.increment();
    }

    /** Counts a record that arrived after its join window closed. */
    public void late(final String stream) {
        late.withTag("stream", stream).increment();
    }

    /** Counts a transition skipped because its environment is not one the run uses. */
    public void transitionFiltered() {
        transitionsFiltered.increment();
    }

    /** Counts a record of {@code input} sent to the dead-letter topic under its header's reason. */
    @Override
    public void deadLetter(final String reason, final String input) {
        deadLetters.withTags("reason", reason, "input", input).increment();
    }

    /** Rewarded groups emitted so far, over every difficulty and keep reason. */
    public double groupCount() {
        return Meters.total(registry, GROUPS, run);
    }
}
