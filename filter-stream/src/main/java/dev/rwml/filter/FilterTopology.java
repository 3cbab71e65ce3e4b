package dev.rwml.filter;

import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.runtime.streams.InputSizeLimit;
import dev.rwml.runtime.streams.UniqueTransitions;
import dev.rwml.schemas.topics.RunTopics;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Builds the filter stage's topology for one run:
 *
 * <ul>
 *   <li>in: {@code rwml.transitions} (key transitionId, value Transition), records at or after
 *       {@code stop.at} (replay's slice end) and environments the run does not use dropped first;
 *       values over {@link InputSizeLimit#MAX_VALUE_BYTES} are dead-lettered undecoded;
 *   <li>each transition judged by a {@link DifficultyJudge} (K tries of the filter model, scored
 *       against the observed next state);
 *   <li>out: {@code rwml.<run>.difficulty} (key transitionId, value TransitionDifficulty), the
 *       verdict on every transition judged, kept or not;
 *   <li>out: {@code rwml.<run>.curriculum} (key transitionId, value Transition), the transitions
 *       kept, unchanged, which the prediction stage reads with {@code input=curriculum};
 *   <li>transitions that cannot be judged go to {@code rwml.<run>.dead-letters} through the
 *       processing handler, with the reason.
 * </ul>
 */
public final class FilterTopology {

    private FilterTopology() {}

    /** A transition with its verdict. */
    private record Judged(Transition transition, TransitionDifficulty verdict) {}

    /**
     * The topics and serdes the topology wires together.
     *
     * @param transitionsTopic the shared transitions log
     * @param topics the run's topics: difficulty and curriculum
     * @param transitions reads Transition values
     * @param verdicts writes TransitionDifficulty values
     * @param curriculum writes the kept Transition values
     */
    public record Wiring(
            String transitionsTopic,
            RunTopics topics,
            Serde<Transition> transitions,
            Serde<TransitionDifficulty> verdicts,
            Serde<Transition> curriculum) {}

    /**
     * The topology.
     *
     * @param config the stage's settings (env filter)
     * @param wiring the topics and their serdes
     * @param judge judges each transition
     * @param metrics counts verdicts
     */
    public static Topology build(
            final FilterConfig config,
            final Wiring wiring,
            final DifficultyJudge judge,
            final FilterMetrics metrics) {
        final RunTopics target = wiring.topics();
        final Serde<Transition> limited = InputSizeLimit.limited(wiring.transitions());
        final StreamsBuilder builder = new StreamsBuilder();

        final KStream<String, Judged> judged =
                builder.stream(
                                wiring.transitionsTopic(),
                                Consumed.with(Serdes.String(), limited)
                                        .withName("transitions-source"))
                        .processValues(config.stopAt().before(), Named.as("transitions-stop-at"))
                        .filter(
                                (id, transition) ->
                                        transition == null
                                                || config.usesEnv(transition.getEnv().getName()),
                                Named.as("transitions-env-filter"))
                        .processValues(UniqueTransitions.check(), Named.as("transitions-unique"))
                        .mapValues(
                                (id, transition) -> {
                                    final long start = System.nanoTime();
                                    final TransitionDifficulty verdict =
                                            judge.judge(id, transition);
                                    metrics.judged(
                                            verdict, Duration.ofNanos(System.nanoTime() - start));
                                    return new Judged(transition, verdict);
                                },
                                Named.as("judge-difficulty"));

        judged.mapValues(Judged::verdict, Named.as("verdicts"))
                .to(
                        target.difficulty().name(),
                        Produced.with(Serdes.String(), wiring.verdicts())
                                .withName("difficulty-sink"));

        judged.filter((id, j) -> j.verdict().getKept(), Named.as("kept"))
                .mapValues(Judged::transition, Named.as("kept-transitions"))
                .to(
                        target.curriculum().name(),
                        Produced.with(Serdes.String(), wiring.curriculum())
                                .withName("curriculum-sink"));

        return builder.build();
    }
}
