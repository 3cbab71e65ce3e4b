package dev.rwml.env.produce;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.alfworld.Grammar;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a {@link TransitionProducer} runs: which environment and split, how many agents and
 * episodes, which policy, and where to publish.
 *
 * <p>Reproducibility: episode {@code n} (0 to episodes-1) is run by agent {@code n mod agents}
 * (agent id {@code agent-<i>}) from (seed, n) alone, and its event times come from {@link
 * EpisodeClock} ({@code baseTime + n minutes + step seconds}), so the same configuration gives the
 * same records, field for field, however the threads interleave. The default base time is the fixed
 * {@link #DEFAULT_BASE_TIME}; pass the current time for live-looking event times.
 *
 * @param env the environment
 * @param split the split ({@code train}, {@code valid_seen}, {@code valid_unseen} for ALFWorld;
 *     {@code train}, {@code test} for the desks)
 * @param grammar the ALFWorld command grammar (ignored by the desks)
 * @param agents N, the number of concurrent agents (threads)
 * @param episodes M, the number of episodes in total
 * @param seed the run's seed
 * @param policy the agents' scripted policy, unless {@code model} acts
 * @param epsilon the random-action probability of {@link PolicyKind#EPSILON}
 * @param invalidRate the inadmissible-action probability of {@link PolicyKind#EPSILON}
 * @param historyTurns H, the earlier turns each transition carries
 * @param rate the most transitions per second over all agents, or empty for no limit
 * @param baseTime the event time of the first step of episode 0
 * @param progressInterval how often the progress listener hears from the run
 * @param kafka where to publish
 * @param model the run's model, when it acts instead of {@code policy}
 */
public record ProducerConfig(
        EnvKind env,
        String split,
        Grammar grammar,
        int agents,
        int episodes,
        long seed,
        PolicyKind policy,
        double epsilon,
        double invalidRate,
        int historyTurns,
        OptionalDouble rate,
        Instant baseTime,
        Duration progressInterval,
        KafkaSettings kafka,
        Optional<ActingModel> model) {

    /** The default number of concurrent agents N. */
    public static final int DEFAULT_AGENTS = 1;

    /** The default number of episodes M in total. */
    public static final int DEFAULT_EPISODES = 10;

    /** The default random-action probability of {@link PolicyKind#EPSILON}. */
    public static final double DEFAULT_EPSILON = 0.1;

    /** {@link #DEFAULT_BASE_TIME} in ISO-8601, a constant that command-line defaults can name. */
    public static final String DEFAULT_BASE_TIME_TEXT = "2026-01-01T00:00:00Z";

    /** The default base of event times: a fixed instant, so default runs are reproducible. */
    public static final Instant DEFAULT_BASE_TIME = Instant.parse(DEFAULT_BASE_TIME_TEXT);

    public ProducerConfig {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(grammar, "grammar");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(rate, "rate");
        Objects.requireNonNull(baseTime, "baseTime");
        Objects.requireNonNull(progressInterval, "progressInterval");
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(model, "model");
        if (agents < 1) {
            throw new IllegalArgumentException("agents must be at least 1, got " + agents);
        }
        if (episodes < 0) {
            throw new IllegalArgumentException("episodes must be >= 0, got " + episodes);
        }
        if (!(epsilon >= 0 && epsilon <= 1)) {
            throw new IllegalArgumentException("epsilon must be in [0, 1], got " + epsilon);
        }
        if (!(invalidRate >= 0 && epsilon + invalidRate <= 1)) {
            throw new IllegalArgumentException(
                    "the invalid-action rate must be >= 0 and at most 1 - epsilon, got "
                            + invalidRate
                            + " with epsilon "
                            + epsilon);
        }
        if (historyTurns < 0) {
            throw new IllegalArgumentException("history must be >= 0 turns, got " + historyTurns);
        }
        rate.ifPresent(
                r -> {
                    if (!(r > 0) || Double.isInfinite(r)) {
                        throw new IllegalArgumentException(
                                "rate must be a positive number of transitions per second, got "
                                        + r);
                    }
                });
        if (progressInterval.isNegative() || progressInterval.isZero()) {
            throw new IllegalArgumentException(
                    "progressInterval must be positive, got " + progressInterval);
        }
        model.ifPresent(
                m -> {
                    if (episodes % m.episodesPerGame() != 0) {
                        throw new IllegalArgumentException(
                                "episodes ("
                                        + episodes
                                        + ") must be a multiple of the episodes per game ("
                                        + m.episodesPerGame()
                                        + ")");
                    }
                });
        // Fails here, with the valid split names, rather than inside an agent thread.
        env.source(split, grammar);
    }

    /** A builder with the defaults: train split, 1 agent, 10 episodes, seed 0, expert, H = 2. */
    public static Builder builder(final EnvKind env, final KafkaSettings kafka) {
        return new Builder(env, kafka);
    }

    /** G, the episodes each game is played: 1 unless the run's model acts in groups. */
    public int episodesPerGame() {
        return model.map(ActingModel::episodesPerGame).orElse(1);
    }

    /** The game episode {@code n} plays: {@code n / G}. */
    public int gameOf(final int n) {
        return n / episodesPerGame();
    }

    /** The agent (0-based) that runs episode {@code n}: the one of its game, {@code game mod N}. */
    public int agentOf(final int n) {
        return gameOf(n) % agents;
    }

    /** Builds a {@link ProducerConfig}; every setter is optional. */
    public static final class Builder {
        private final EnvKind env;
        private final KafkaSettings kafka;
        private String split = "train";
        private Grammar grammar = Grammar.CURRENT;
        private int agents = DEFAULT_AGENTS;
        private int episodes = DEFAULT_EPISODES;
        private long seed;
        private PolicyKind policy = PolicyKind.EXPERT;
        private double epsilon = DEFAULT_EPSILON;
        private double invalidRate = PolicyKind.DEFAULT_INVALID_RATE;
        private int historyTurns = EpisodeRunner.DEFAULT_HISTORY_TURNS;
        private OptionalDouble rate = OptionalDouble.empty();
        private Instant baseTime = DEFAULT_BASE_TIME;
        private Duration progressInterval = Duration.ofSeconds(5);
        private Optional<ActingModel> model = Optional.empty();

        private Builder(final EnvKind env, final KafkaSettings kafka) {
            this.env = env;
            this.kafka = kafka;
        }

        public Builder split(final String value) {
            this.split = value;
            return this;
        }

        public Builder grammar(final Grammar value) {
            this.grammar = value;
            return this;
        }

        public Builder agents(final int value) {
            this.agents = value;
            return this;
        }

        public Builder episodes(final int value) {
            this.episodes = value;
            return this;
        }

        public Builder seed(final long value) {
            this.seed = value;
            return this;
        }

        public Builder policy(final PolicyKind value) {
            this.policy = value;
            return this;
        }

        public Builder epsilon(final double value) {
            this.epsilon = value;
            return this;
        }

        public Builder invalidRate(final double value) {
            this.invalidRate = value;
            return this;
        }

        public Builder historyTurns(final int value) {
            this.historyTurns = value;
            return this;
        }

        /** At most this many transitions per second over all agents. */
        public Builder rate(final double transitionsPerSecond) {
            this.rate = OptionalDouble.of(transitionsPerSecond);
            return this;
        }

        public Builder baseTime(final Instant value) {
            this.baseTime = value;
            return this;
        }

        public Builder progressInterval(final Duration value) {
            this.progressInterval = value;
            return this;
        }

        /** Lets the run's model act instead of the scripted policy. */
        public Builder model(final ActingModel value) {
            this.model = Optional.of(value);
            return this;
        }

        public ProducerConfig build() {
            return new ProducerConfig(
                    env,
                    split,
                    grammar,
                    agents,
                    episodes,
                    seed,
                    policy,
                    epsilon,
                    invalidRate,
                    historyTurns,
                    rate,
                    baseTime,
                    progressInterval,
                    kafka,
                    model);
        }
    }
}
