package dev.rwml.env.produce;

import dev.rwml.env.Agent;
import dev.rwml.events.EnvRef;
import dev.rwml.events.Rollout;
import dev.rwml.events.RolloutStep;
import dev.rwml.events.Sampling;
import dev.rwml.events.Transition;
import dev.rwml.schemas.serde.AvroArrays;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import dev.rwml.worldmodel.train.Advantages;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the episodes a run's model acted, a game (its G episodes) at a time: the episodes'
 * transitions to {@code rwml.transitions} and their {@link Rollout}s to {@code
 * rwml.<run>.rollouts}, in one Kafka transaction, so a {@code read_committed} reader (every stage)
 * sees a game whole or not at all, however the acting process ends.
 *
 * <p>One transactional id per command: run, environment, split and seed. Opening initialises the
 * transactions, which aborts what a killed predecessor of the same command left open (and fences it
 * if it still runs), then reads back the games already committed: a rerun of the command skips
 * those games and plays the others, so each episode is published exactly once. Thread-safe: the
 * agents of a command publish one episode at a time.
 */
public final class RolloutPublisher implements EpisodeSink {

    private static final Logger LOG = LoggerFactory.getLogger(RolloutPublisher.class);

    /** How long reading back the committed rollouts may take. */
    private static final Duration READ_BACK_TIMEOUT = Duration.ofMinutes(1);

    private final Producer<byte[], byte[]> producer;
    private final TopicSpec<String, Transition> transitions;
    private final TopicSpec<String, Rollout> rollouts;
    private final Serializer<Transition> transitionSerializer;
    private final Serializer<Rollout> rolloutSerializer;
    private final Set<String> published;
    private final Command command;
    private final PublishCounters counters;
    private final AtomicLong acknowledged = new AtomicLong();

    private RolloutPublisher(
            final Producer<byte[], byte[]> producer,
            final TopicSpec<String, Transition> transitions,
            final TopicSpec<String, Rollout> rollouts,
            final KafkaSettings settings,
            final Set<String> published,
            final Command command,
            final PublishCounters counters) {
        this.producer = producer;
        this.transitions = transitions;
        this.rollouts = rollouts;
        this.transitionSerializer = transitions.valueSerde(settings.registryConfig()).serializer();
        this.rolloutSerializer = rollouts.valueSerde(settings.registryConfig()).serializer();
        this.published = published;
        this.command = command;
        this.counters = counters;
    }

    /**
     * What makes a command's episodes its own, and what every rollout of it records.
     *
     * @param run the run whose model acts
     * @param env the environment and split
     * @param seed the command's seed: with the episode number it fixes the game
     * @param sampling how the actions are sampled
     */
    public record Command(String run, EnvRef env, long seed, Sampling sampling) {
        public Command {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(env, "env");
            Objects.requireNonNull(sampling, "sampling");
        }

        /** The transactional id the command's publishers share. */
        String transactionalId() {
            return "rwml-act-" + run + "-" + env.getName() + "-" + env.getSplit() + "-" + seed;
        }
    }

    /**
     * Creates the topics if they are missing, takes over the command's transactional id and reads
     * back the episodes already published.
     */
    public static RolloutPublisher open(
            final KafkaSettings settings, final Command command, final MeterRegistry meters) {
        final TopicCatalog catalog = new TopicCatalog(settings.catalog());
        final RunTopics topics = catalog.run(command.run());
        try (Admin admin = settings.connection().admin()) {
            new TopicAdmin(admin, catalog)
                    .ensure(List.of(catalog.transitions(), topics.rollouts()));
        }
        final Map<String, Object> config =
                new HashMap<>(TransitionPublisher.producerConfig(settings, command.run()));
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, command.transactionalId());
        final KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config);
        try {
            // Aborts what a killed run of this command left open, before the read-back, whose
            // read_committed end would otherwise wait for that transaction to time out.
            producer.initTransactions();
            final Set<String> published = readBack(settings, topics.rollouts().name());
            return new RolloutPublisher(
                    producer,
                    catalog.transitions(),
                    topics.rollouts(),
                    settings,
                    published,
                    command,
                    new PublishCounters(meters, "run"));
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
    }

    @Override
    public boolean published(final int game) {
        return published.contains(groupId(command, game));
    }

    /**
     * Publishes the episodes of one game, their transitions and rollouts (each with its advantage
     * in the group), in one transaction, after a permit of {@code throttle} per transition.
     *
     * @throws IllegalStateException when the transaction failed (it is aborted; rerunning the
     *     command publishes the game) or another process of the same command took over
     */
    @Override
    public void publish(final List<Played> game, final Throttle throttle)
            throws InterruptedException {
        final List<Rollout> group = rollouts(command, game);
        for (final Played played : game) {
            for (int i = 0; i < played.episode().transitions().size(); i++) {
                throttle.acquire();
            }
        }
        commit(game, group);
    }

    private synchronized void commit(final List<Played> game, final List<Rollout> group) {
        final String groupId = group.get(0).getGroupId();
        try {
            producer.beginTransaction();
            for (final Played played : game) {
                for (final Transition t : played.episode().transitions()) {
                    producer.send(
                            record(transitions, t.getTransitionId(), transitionSerializer, t));
                }
            }
            for (final Rollout rollout : group) {
                producer.send(record(rollouts, groupId, rolloutSerializer, rollout));
            }
            producer.commitTransaction();
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            throw new IllegalStateException(
                    "another process took over transactional id "
                            + command.transactionalId()
                            + " (the same rwml env run of the same run, environment, split and"
                            + " seed): this one stops",
                    e);
        } catch (KafkaException e) {
            abort();
            throw new IllegalStateException(
                    "the episodes of "
                            + groupId
                            + " were not published ("
                            + e.getMessage()
                            + "); run the same command again to publish the missing episodes",
                    e);
        }
        published.add(groupId);
        for (final Played played : game) {
            final int size = played.episode().transitions().size();
            acknowledged.addAndGet(size);
            counters.acknowledged(command.env().getName(), size);
            counters.episode(command.env().getName());
        }
    }

    /** The key of a game's rollouts: {@code <env>/<split>-<seed>-game<game>@<run>}. */
    static String groupId(final Command command, final int game) {
        return command.env().getName()
                + "/"
                + command.env().getSplit()
                + "-"
                + command.seed()
                + "-game"
                + game
                + "@"
                + command.run();
    }

    /** The rollouts of one game's episodes, each with its advantage among their returns. */
    static List<Rollout> rollouts(final Command command, final List<Played> game) {
        final double[] returns =
                game.stream()
                        .mapToDouble(
                                p ->
                                        p.episode().transitions().stream()
                                                .mapToDouble(Transition::getEnvReward)
                                                .sum())
                        .toArray();
        final double[] advantages = Advantages.of(returns, true);
        final List<Rollout> out = new ArrayList<>(game.size());
        for (int i = 0; i < game.size(); i++) {
            out.add(rollout(command, game.get(i), game.size(), advantages[i]));
        }
        return out;
    }

    private static Rollout rollout(
            final Command command,
            final Played played,
            final int groupSize,
            final double advantage) {
        final List<Transition> transitions = played.episode().transitions();
        final List<RolloutStep> steps = new ArrayList<>(transitions.size());
        double episodeReturn = 0;
        int invalid = 0;
        for (int i = 0; i < transitions.size(); i++) {
            final Transition t = transitions.get(i);
            final Agent.Choice choice = played.episode().choices().get(i);
            final Optional<Agent.Sampled> sampled = choice.sampled();
            steps.add(
                    RolloutStep.newBuilder()
                            .setTransitionId(t.getTransitionId())
                            .setModelVersion(choice.modelVersion().orElseThrow())
                            .setPromptTokenIds(ints(sampled.map(Agent.Sampled::promptTokenIds)))
                            .setAnswerTokenIds(ints(sampled.map(Agent.Sampled::answerTokenIds)))
                            .setLogProbs(floats(sampled.map(Agent.Sampled::logProbs)))
                            .setAction(t.getAction())
                            .setEnvReward(t.getEnvReward())
                            .setActionValid(t.getActionValid())
                            .setInvalidAnswer(choice.problem().orElse(null))
                            .build());
            episodeReturn += t.getEnvReward();
            invalid += t.getActionValid() ? 0 : 1;
        }
        final Transition last =
                transitions.isEmpty() ? null : transitions.get(transitions.size() - 1);
        return Rollout.newBuilder()
                .setRolloutId(command.env().getName() + "/" + played.episodeId())
                .setGroupId(groupId(command, played.game()))
                .setRun(command.run())
                .setEnv(command.env())
                .setEpisodeId(played.episodeId())
                .setSeed(command.seed())
                .setEpisode(played.n())
                .setGame(played.game())
                .setGroupSize(groupSize)
                .setAgentId(last == null ? "" : last.getAgentId())
                .setTask(last == null ? "" : last.getTask())
                .setSampling(command.sampling())
                .setSteps(steps)
                .setEpisodeReturn(episodeReturn)
                .setAdvantage(advantage)
                .setSuccess(transitions.stream().anyMatch(t -> t.getEnvReward() > 0))
                .setInvalidActions(invalid)
                .setDone(last != null && last.getDone())
                .setEventTime(last == null ? Instant.EPOCH : last.getEventTime())
                .build();
    }

    private static List<Integer> ints(final Optional<int[]> values) {
        return values.map(AvroArrays::ints).orElse(List.of());
    }

    private static List<Float> floats(final Optional<float[]> values) {
        return values.map(AvroArrays::floats).orElse(List.of());
    }

    @Override
    public long acknowledged() {
        return acknowledged.get();
    }

    /** Always 0: a transaction that fails stops the run. */
    @Override
    public long errors() {
        return 0;
    }

    /** Nothing to flush: every episode is committed before {@link #publish} returns. */
    @Override
    public void flush() {}

    @Override
    public void close() {
        producer.close();
    }

    private void abort() {
        try {
            producer.abortTransaction();
        } catch (KafkaException e) {
            LOG.warn("could not abort the failed transaction; the broker times it out", e);
        }
    }

    private static <V> ProducerRecord<byte[], byte[]> record(
            final TopicSpec<String, ?> spec,
            final String key,
            final Serializer<V> serializer,
            final V value) {
        return new ProducerRecord<>(
                spec.name(),
                key.getBytes(StandardCharsets.UTF_8),
                serializer.serialize(spec.name(), value));
    }

    /** The keys of every committed record of {@code topic}, read to its end. */
    private static Set<String> readBack(final KafkaSettings settings, final String topic) {
        final Set<String> keys = ConcurrentHashMap.newKeySet();
        try (KafkaConsumer<byte[], byte[]> consumer =
                settings.connection().readCommittedConsumer("rwml-env-read-back")) {
            final List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, READ_BACK_TIMEOUT).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> end =
                    consumer.endOffsets(partitions, READ_BACK_TIMEOUT);
            final long deadline = System.nanoTime() + READ_BACK_TIMEOUT.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "could not read " + topic + " to its end in " + READ_BACK_TIMEOUT);
                }
                for (final ConsumerRecord<byte[], byte[]> r :
                        consumer.poll(Duration.ofMillis(200))) {
                    keys.add(new String(r.key(), StandardCharsets.UTF_8));
                }
            }
        }
        return keys;
    }
}
