package dev.rwml.env;

import dev.rwml.events.EnvRef;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one episode of an environment with an agent and returns its transitions, in step order.
 *
 * <p>A run is a pure function of (source, agent, agent id, seed, episode number, history length,
 * clock): the environment seed and the agent's random stream are both derived from (seed, episode
 * number), so with a fixed clock the same inputs give identical records. Ids: episode {@code
 * <split>-<seed>-<n>}, transition {@code <env>/<episodeId>/<step>} (step from 0).
 *
 * @param historyTurns H, how many earlier (action, observation it produced) turns each transition
 *     carries, oldest first
 * @param maxSteps a safety stop for environments without a step cap; the episode's last record then
 *     has {@code done=false}
 * @param clock the source of event times; a fixed or stepping clock makes runs reproducible
 */
public record EpisodeRunner(int historyTurns, int maxSteps, Clock clock) {

    /** The paper's history length. */
    public static final int DEFAULT_HISTORY_TURNS = 2;

    /**
     * The metadata key of a step whose action a model's answer did not hold: why it did not (the
     * step is recorded invalid, with the answer as the action the environment was given).
     */
    public static final String INVALID_ANSWER = "invalid_answer";

    /** Far above every environment's own cap; only a runaway environment reaches it. */
    public static final int DEFAULT_MAX_STEPS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(EpisodeRunner.class);

    public EpisodeRunner {
        if (historyTurns < 0) {
            throw new IllegalArgumentException("historyTurns must be >= 0, got " + historyTurns);
        }
        if (maxSteps < 1) {
            throw new IllegalArgumentException("maxSteps must be >= 1, got " + maxSteps);
        }
        Objects.requireNonNull(clock, "clock");
    }

    /** A runner with H = 2 and the default safety stop. */
    public static EpisodeRunner withClock(final Clock clock) {
        return new EpisodeRunner(DEFAULT_HISTORY_TURNS, DEFAULT_MAX_STEPS, clock);
    }

    /** The episode id of episode {@code n} of {@code seed} in a split. */
    public static String episodeId(final String split, final long seed, final int n) {
        return split + "-" + seed + "-" + n;
    }

    /**
     * The episode id of episode {@code n} of {@code seed} in a split when run {@code run}'s model
     * acts: apart from the scripted episodes of the same seed, which play the same game.
     */
    public static String episodeId(
            final String split, final long seed, final int n, final String run) {
        return episodeId(split, seed, n) + "@" + run;
    }

    /** Runs episode {@code n} of {@code seed} to its end and returns its transitions. */
    public List<Transition> run(
            final EnvironmentSource source,
            final Agent agent,
            final String agentId,
            final long seed,
            final int n) {
        return run(source, agent, agentId, episodeId(source.split(), seed, n), seed, n, n)
                .transitions();
    }

    /**
     * Runs episode {@code n} of {@code seed}, which plays game {@code game} of the seed, to its end
     * under {@code episodeId} and returns its transitions with the agent's choices. The environment
     * seed comes from (seed, game), the agent's random stream from (seed, n): episodes of one game
     * play the same game with their own draws, and with {@code game == n} an episode is the one
     * {@link #run(EnvironmentSource, Agent, String, long, int)} runs.
     */
    public Episode run(
            final EnvironmentSource source,
            final Agent agent,
            final String agentId,
            final String episodeId,
            final long seed,
            final int game,
            final int n) {
        final long envSeed = streamOf(seed, game).nextLong();
        final SplittableRandom episodeStream = streamOf(seed, n);
        episodeStream.nextLong();
        final SplittableRandom agentRng = episodeStream.split();
        final Environment env = source.create(envSeed);
        final EnvRef envRef = new EnvRef(source.name(), source.version(), source.split());
        final List<Turn> remembered = new ArrayList<>();
        final List<Transition> out = new ArrayList<>();
        final List<Agent.Choice> choices = new ArrayList<>();
        for (int step = 0; !env.done() && step < maxSteps; step++) {
            final String observation = env.observation();
            final List<String> admissible = List.copyOf(env.admissibleActions());
            final Agent.Choice choice = agent.act(env, List.copyOf(remembered), agentRng);
            choices.add(choice);
            final String action = choice.action();
            final Environment.Step result = env.step(action);
            Map<String, String> metadata = env.metadata();
            if (choice.problem().isPresent()) {
                metadata = new TreeMap<>(metadata);
                metadata.put(INVALID_ANSWER, choice.problem().get());
            }
            out.add(
                    Transition.newBuilder()
                            .setTransitionId(source.name() + "/" + episodeId + "/" + step)
                            .setEnv(envRef)
                            .setEpisodeId(episodeId)
                            .setStep(step)
                            .setAgentId(agentId)
                            .setPolicy(
                                    new PolicyRef(
                                            agent.name(),
                                            choice.modelVersion().isPresent()
                                                    ? choice.modelVersion().getAsLong()
                                                    : null))
                            .setTask(env.task())
                            .setHistory(
                                    List.copyOf(
                                            remembered.subList(
                                                    Math.max(0, remembered.size() - historyTurns),
                                                    remembered.size())))
                            .setObservation(observation)
                            .setAction(action)
                            .setNextObservation(result.observation())
                            .setNextKind(result.kind())
                            .setEnvReward(result.reward())
                            .setDone(result.done())
                            .setActionValid(result.actionValid() && choice.problem().isEmpty())
                            .setAdmissibleActions(admissible)
                            .setEventTime(clock.instant().truncatedTo(ChronoUnit.MILLIS))
                            .setMetadata(metadata)
                            .build());
            remembered.add(new Turn(action, observation));
        }
        if (!env.done()) {
            LOG.warn(
                    "Episode {} of {} stopped at the safety limit of {} steps without finishing",
                    episodeId,
                    source.name(),
                    maxSteps);
        }
        LOG.debug("Episode {} of {} ran {} steps", episodeId, source.name(), out.size());
        return new Episode(out, choices);
    }

    private static SplittableRandom streamOf(final long seed, final int index) {
        return new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (index + 1L)));
    }

    /**
     * A finished episode.
     *
     * @param transitions its transitions, in step order
     * @param choices what the agent chose at each step, in the same order
     */
    public record Episode(List<Transition> transitions, List<Agent.Choice> choices) {
        public Episode {
            transitions = List.copyOf(transitions);
            choices = List.copyOf(choices);
            if (transitions.size() != choices.size()) {
                throw new IllegalArgumentException(
                        transitions.size() + " transitions but " + choices.size() + " choices");
            }
        }
    }
}
