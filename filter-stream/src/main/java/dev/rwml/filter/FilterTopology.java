package dev.rwml.filter;

import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.runtime.streams.InputSizeLimit;
import dev.rwml.runtime.streams.UniqueTransitions;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.util.Map;
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
 *   <li>in: {@code rwml.transitions} (key transitionId, value Transition), environments the run
 *       does not use dropped first; values over {@link InputSizeLimit#MAX_VALUE_BYTES} are
 *       dead-lettered undecoded;
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
     * The topology.
     *
     * @param config the stage's settings (run, env filter)
     * @param registryConfig the serdes' registry settings
     * @param judge judges each transition
     * @param metrics counts verdicts
     */
    public static Topology build(
            final FilterConfig config,
            final Map<String, ?> registryConfig,
            final DifficultyJudge judge,
            final FilterMetrics metrics) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics target = catalog.run(config.run());
        final Serde<Transition> transitionSerde = catalog.transitions().valueSerde(registryConfig);
        final Serde<Transition> limited = InputSizeLimit.limited(transitionSerde);
        final Serde<TransitionDifficulty> difficultySerde =
                target.difficulty().valueSerde(registryConfig);
        final StreamsBuilder builder = new StreamsBuilder();

        final KStream<String, Judged> judged =
                builder.stream(
                                catalog.transitions().name(),
                                Consumed.with(Serdes.String(), limited)
                                        .withName("transitions-source"))
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
                        Produced.with(Serdes.String(), difficultySerde)
                                .withName("difficulty-sink"));

        judged.filter((id, j) -> j.verdict().getKept(), Named.as("kept"))
                .mapValues(Judged::transition, Named.as("kept-transitions"))
                .to(
                        target.curriculum().name(),
                        Produced.with(Serdes.String(), transitionSerde)
                                .withName("curriculum-sink"));

        return builder.build();
    }
}
