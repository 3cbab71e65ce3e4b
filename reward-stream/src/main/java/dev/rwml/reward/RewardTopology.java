package dev.rwml.reward;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Transition;
import dev.rwml.reward.streams.JoinMissException;
import dev.rwml.reward.streams.JoinResult;
import dev.rwml.reward.streams.LatenessCheck;
import dev.rwml.reward.streams.Timed;
import dev.rwml.reward.streams.ToDeadLetter;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.runtime.streams.InputSizeLimit;
import dev.rwml.runtime.streams.UniqueTransitions;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;

/**
 * Builds the reward stage's topology for one run:
 *
 * <ul>
 *   <li>in: {@code rwml.<sourceRun>.predictions} (key transitionId, value PredictionGroup) and
 *       {@code rwml.transitions} (key transitionId, value Transition), co-partitioned;
 *   <li>a windowed left join of predictions with transitions on the key ({@code join.window} either
 *       side, {@code join.grace} for out-of-order records);
 *   <li>out: {@code rwml.<run>.rewards} (key transitionId, value RewardedGroup), every group, kept
 *       or not;
 *   <li>out: {@code rwml.<run>.dead-letters} (key the original key bytes, value DeadLetter) for
 *       prediction groups that found no transition within the window (reason {@value
 *       #NO_TRANSITION}), arrived after their window and grace had closed (reason {@value #LATE}),
 *       or failed to score; the error handlers add undecodable records.
 * </ul>
 *
 * Transitions of environments the run does not use are filtered out before the join.
 */
public final class RewardTopology {

    /** Dead-letter reason of a prediction group no transition joined within the window. */
    public static final String NO_TRANSITION = "NO_TRANSITION_WITHIN_WINDOW";

    /** Dead-letter reason of a prediction group that arrived after its window and grace. */
    public static final String LATE = "LATE";

    static final String PREDICTIONS_SOURCE = "predictions-source";
    static final String TRANSITIONS_SOURCE = "transitions-source";
    static final String JOIN = "predictions-join-transitions";
    static final String JOIN_STORE = "predictions-join-transitions-store";

    private RewardTopology() {}

    /**
     * The topics and serdes the topology wires together.
     *
     * @param transitionsTopic the shared transitions log
     * @param source the topics of the run whose predictions are scored ({@code sourceRun})
     * @param target the run's topics: rewards and dead letters go there
     * @param transitions reads Transition values, and keeps them in the join store
     * @param predictions reads PredictionGroup values, keeps them in the join store and writes them
     *     into dead letters
     * @param rewards writes RewardedGroup values
     * @param deadLetters writes DeadLetter values
     */
    public record Wiring(
            String transitionsTopic,
            RunTopics source,
            RunTopics target,
            Serde<Transition> transitions,
            Serde<PredictionGroup> predictions,
            Serde<RewardedGroup> rewards,
            Serde<DeadLetter> deadLetters) {}

    /**
     * The topology.
     *
     * @param config the stage's settings (window, env filter)
     * @param wiring the topics and their serdes
     * @param rewarder scores joined pairs
     * @param metrics counts late records, misses and dead letters
     * @param clock stamps dead letters
     */
    public static Topology build(
            final RewardConfig config,
            final Wiring wiring,
            final GroupRewarder rewarder,
            final RewardMetrics metrics,
            final Clock clock) {
        final RunTopics source = wiring.source();
        final RunTopics target = wiring.target();
        final Serde<Transition> transitionSerde = wiring.transitions();
        final Serde<PredictionGroup> predictionSerde = wiring.predictions();
        final DeadLetterWriter deadLetters =
                new DeadLetterWriter(StageName.REWARD, target.deadLetters(), metrics, clock);
        final long windowMs = config.joinWindow().toMillis();
        final long allowedLatenessMs = windowMs + config.joinGrace().toMillis();

        final StreamsBuilder builder = new StreamsBuilder();

        final KStream<String, Transition> transitions =
                builder.stream(
                                wiring.transitionsTopic(),
                                Consumed.with(
                                                Serdes.String(),
                                                InputSizeLimit.limited(transitionSerde))
                                        .withName(TRANSITIONS_SOURCE))
                        .filter(
                                (id, transition) -> {
                                    if (transition == null) {
                                        throw new IllegalArgumentException(
                                                "value on the transitions input is null (a"
                                                        + " tombstone), not a Transition");
                                    }
                                    final boolean used =
                                            config.usesEnv(transition.getEnv().getName());
                                    if (!used) {
                                        metrics.transitionFiltered();
                                    }
                                    return used;
                                },
                                Named.as("transitions-env-filter"))
                        .processValues(UniqueTransitions.check(), Named.as("transitions-unique"))
                        .processValues(
                                () ->
                                        new LatenessCheck<Transition>(
                                                "transitions", allowedLatenessMs, metrics),
                                Named.as("transitions-lateness"))
                        // Late transitions only go uncounted by the join; their predictions
                        // surface as join misses.
                        .mapValues(Timed::value, Named.as("transitions-unwrap"));

        final Map<String, KStream<String, Timed<PredictionGroup>>> predictions =
                builder.stream(
                                source.predictions().name(),
                                Consumed.with(
                                                Serdes.String(),
                                                InputSizeLimit.limited(predictionSerde))
                                        .withName(PREDICTIONS_SOURCE))
                        .processValues(
                                () ->
                                        new LatenessCheck<PredictionGroup>(
                                                "predictions", allowedLatenessMs, metrics),
                                Named.as("predictions-lateness"))
                        .split(Named.as("predictions-"))
                        .branch((id, timed) -> timed.late(), Branched.as("late"))
                        .defaultBranch(Branched.as("on-time"));

        final KStream<byte[], DeadLetter> late =
                predictions
                        .get("predictions-late")
                        .process(
                                () ->
                                        new ToDeadLetter<Timed<PredictionGroup>>(
                                                deadLetters,
                                                source.predictions().name(),
                                                predictionSerde.serializer(),
                                                LATE,
                                                lateFailure(config)),
                                Named.as("late-dead-letter"));

        final Map<String, KStream<String, JoinResult>> joined =
                predictions
                        .get("predictions-on-time")
                        .mapValues(Timed::value, Named.as("predictions-unwrap"))
                        .leftJoin(
                                transitions,
                                JoinResult::new,
                                JoinWindows.ofTimeDifferenceAndGrace(
                                        config.joinWindow(), config.joinGrace()),
                                StreamJoined.with(Serdes.String(), predictionSerde, transitionSerde)
                                        .withName(JOIN)
                                        .withStoreName(JOIN_STORE))
                        .split(Named.as("join-"))
                        .branch((id, result) -> result.isMiss(), Branched.as("miss"))
                        .defaultBranch(Branched.as("match"));

        final KStream<byte[], DeadLetter> misses =
                joined.get("join-miss")
                        .process(
                                () ->
                                        new ToDeadLetter<JoinResult>(
                                                deadLetters,
                                                source.predictions().name(),
                                                predictionSerde.serializer(),
                                                NO_TRANSITION,
                                                missFailure(config, metrics)),
                                Named.as("miss-dead-letter"));

        late.merge(misses, Named.as("dead-letters-merge"))
                .to(
                        target.deadLetters().name(),
                        Produced.with(Serdes.ByteArray(), wiring.deadLetters())
                                .withName("dead-letters-sink"));

        joined.get("join-match")
                .mapValues(
                        result -> rewarder.reward(result.prediction(), result.transition()),
                        Named.as("score-groups"))
                .to(
                        target.rewards().name(),
                        Produced.with(Serdes.String(), wiring.rewards()).withName("rewards-sink"));

        return builder.build();
    }

    private static ToDeadLetter.Failure<Timed<PredictionGroup>> lateFailure(
            final RewardConfig config) {
        return new ToDeadLetter.Failure<>() {
            @Override
            public PredictionGroup group(final Timed<PredictionGroup> value) {
                return value.value();
            }

            @Override
            public int partition(final Timed<PredictionGroup> value, final int taskPartition) {
                return value.partition();
            }

            @Override
            public long offset(final Timed<PredictionGroup> value) {
                return value.offset();
            }

            @Override
            public RuntimeException error(final Timed<PredictionGroup> value) {
                return new JoinMissException(
                        "late: the prediction group arrived after its join window ("
                                + config.joinWindow()
                                + ") and grace ("
                                + config.joinGrace()
                                + ") had closed in stream time; raise join.grace if this is"
                                + " common");
            }
        };
    }

    private static ToDeadLetter.Failure<JoinResult> missFailure(
            final RewardConfig config, final RewardMetrics metrics) {
        return new ToDeadLetter.Failure<>() {
            @Override
            public PredictionGroup group(final JoinResult value) {
                return value.prediction();
            }

            @Override
            public int partition(final JoinResult value, final int taskPartition) {
                return taskPartition;
            }

            @Override
            public long offset(final JoinResult value) {
                // Emitted when stream time closes the window, long after the group was read.
                return -1;
            }

            @Override
            public RuntimeException error(final JoinResult value) {
                metrics.joinMiss();
                return new JoinMissException(
                        "no transition within window: no "
                                + TopicCatalog.TRANSITIONS
                                + " record with this key within "
                                + config.joinWindow()
                                + " (grace "
                                + config.joinGrace()
                                + ") of the prediction group"
                                + (config.envs().isEmpty()
                                        ? ""
                                        : ", among the environments " + config.envs()));
            }
        };
    }
}
