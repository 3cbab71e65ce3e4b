package dev.rwml.evaluation;

import dev.rwml.env.Environment;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.events.EnvRef;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The downstream check of a world model: an agent that, at each step, has a few candidate actions
 * (the epsilon-expert's draws, some of them inadmissible, and one draw without inadmissible ones
 * last, so one admissible candidate always exists), asks the world model for each candidate's next
 * observation, and takes the first one not predicted to do nothing ({@code Nothing happens.} in
 * ALFWorld, an {@code Error:} result in tau2). Without a world model it takes the first candidate.
 *
 * <p>Both agents draw the same candidates in the same state (the candidates are drawn before the
 * world model is asked), so they act alike until the guided agent avoids a candidate. An episode is
 * a pure function of (source, episode number, seed, settings, predictions).
 */
public final class GuidedAgent {

    /** What the agent asks the world model. */
    public interface Foresight {
        /**
         * Predicted next observations of each candidate, as transitions without their outcome; null
         * entries are samples that did not parse. A candidate whose prompt does not fit the model
         * gets an empty list (nothing is known, so it is not avoided).
         */
        List<List<String>> predict(List<Transition> candidates, long seed);
    }

    /**
     * The agent's settings.
     *
     * @param episodes episodes per held-out split
     * @param candidates candidate actions per step, at least 2 (the last never inadmissible)
     * @param epsilon probability that a draw is a random admissible action
     * @param invalidRate probability that a draw (other than the last) is inadmissible
     */
    public record Settings(int episodes, int candidates, double epsilon, double invalidRate) {
        public Settings {
            if (episodes < 1) {
                throw new IllegalArgumentException(
                        "--agent-episodes must be at least 1, got " + episodes);
            }
            if (candidates < 2) {
                throw new IllegalArgumentException(
                        "--agent-candidates must be at least 2, got " + candidates);
            }
            if (epsilon < 0 || invalidRate < 0 || epsilon + invalidRate > 1) {
                throw new IllegalArgumentException(
                        "--agent-epsilon and --agent-invalid-rate must be >= 0 with a sum <= 1");
            }
        }
    }

    /**
     * One episode.
     *
     * @param steps actions taken
     * @param invalid actions whose result did nothing
     * @param success whether the task was completed (a positive reward)
     * @param avoided candidates the agent did not take because they were predicted to do nothing
     */
    public record Episode(int steps, int invalid, boolean success, int avoided) {}

    private final Settings settings;

    public GuidedAgent(final Settings settings) {
        this.settings = settings;
    }

    /**
     * Whether an observation (real or predicted) says the action did nothing: {@code Nothing
     * happens.} (ALFWorld) or an {@code Error:} result (tau2).
     */
    public static boolean doesNothing(final String observation) {
        if (observation == null) {
            return false;
        }
        final String text = observation.strip();
        return text.startsWith("Nothing happens") || text.startsWith("Error:");
    }

    /** Runs episode {@code n}; {@code foresight} null runs the agent without a world model. */
    public Episode run(
            final EnvironmentSource source,
            final int n,
            final long seed,
            final Foresight foresight) {
        // The episode's game is the one EpisodeRunner plays for (seed, n).
        final SplittableRandom base = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (n + 1L)));
        final Environment env = source.create(base.nextLong());
        final SplittableRandom rng = base.split();
        final Deque<Turn> history = new ArrayDeque<>();
        int steps = 0;
        int invalid = 0;
        int avoided = 0;
        boolean success = false;
        while (!env.done() && steps < 1_000) {
            final List<String> candidates = candidates(env, rng);
            int chosen = 0;
            if (foresight != null && candidates.size() > 1) {
                final List<Transition> asked = new ArrayList<>();
                for (final String c : candidates) {
                    asked.add(transition(source, env, history, n, steps, c));
                }
                final List<List<String>> predicted =
                        foresight.predict(asked, seed ^ Bootstrap.fnv(n + "/" + steps));
                chosen = -1;
                int passedOver = 0;
                for (int i = 0; i < candidates.size() && chosen < 0; i++) {
                    if (predictsNothing(predicted.get(i))) {
                        passedOver++;
                    } else {
                        chosen = i;
                    }
                }
                if (chosen < 0) {
                    // Everything is predicted to do nothing: act as the agent without a model.
                    chosen = 0;
                    passedOver = 0;
                }
                avoided += passedOver;
            }
            final String action = candidates.get(chosen);
            final String observation = env.observation();
            final Environment.Step result = env.step(action);
            steps++;
            if (!result.actionValid() || doesNothing(result.observation())) {
                invalid++;
            }
            success |= result.reward() > 0;
            history.addLast(new Turn(action, observation));
            if (history.size() > 2) {
                history.removeFirst();
            }
        }
        return new Episode(steps, invalid, success, avoided);
    }

    /** Avoided when at least half of the parsed samples say the action does nothing. */
    static boolean predictsNothing(final List<String> samples) {
        int nothing = 0;
        int parsed = 0;
        for (final String s : samples) {
            if (s != null) {
                parsed++;
                nothing += doesNothing(s) ? 1 : 0;
            }
        }
        return parsed > 0 && 2 * nothing >= parsed;
    }

    /** The step's candidates, distinct, in draw order; the rng advances the same either way. */
    List<String> candidates(final Environment env, final SplittableRandom rng) {
        final Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < settings.candidates(); i++) {
            final boolean last = i == settings.candidates() - 1;
            final double draw = rng.nextDouble();
            final String action;
            if (!last && draw < settings.invalidRate()) {
                action = env.inadmissibleAction(rng);
            } else if (draw < settings.invalidRate() + settings.epsilon()
                    || env.expertAction().isEmpty()) {
                final List<String> admissible = env.admissibleActions();
                action = admissible.get(rng.nextInt(admissible.size()));
            } else {
                action = env.expertAction().get();
            }
            out.add(action);
        }
        return new ArrayList<>(out);
    }

    /** The transition the world model is asked about: what the agent sees, and the candidate. */
    private static Transition transition(
            final EnvironmentSource source,
            final Environment env,
            final Deque<Turn> history,
            final int n,
            final int step,
            final String action) {
        final String episodeId = source.split() + "-agent-" + n;
        final NextStateKind kind =
                env.name().equals("alfworld")
                        ? NextStateKind.TEXT
                        : action.strip().startsWith("{")
                                ? NextStateKind.TOOL_RESULT
                                : NextStateKind.USER_MESSAGE;
        return Transition.newBuilder()
                .setTransitionId(source.name() + "/" + episodeId + "/" + step)
                .setEnv(new EnvRef(source.name(), source.version(), source.split()))
                .setEpisodeId(episodeId)
                .setStep(step)
                .setAgentId("guided-agent")
                .setPolicy(new PolicyRef("guided", null))
                .setTask(env.task())
                .setHistory(List.copyOf(history))
                .setObservation(env.observation())
                .setAction(action)
                .setNextObservation("")
                .setNextKind(kind)
                .setEnvReward(0.0)
                .setDone(false)
                .setActionValid(true)
                .setAdmissibleActions(List.copyOf(env.admissibleActions()))
                .setEventTime(Instant.EPOCH)
                .setMetadata(env.metadata())
                .build();
    }

    /** Human-readable settings, for the report. */
    String describe() {
        return String.format(
                Locale.ROOT,
                "%d episodes per split, %d candidates per step (epsilon %.2f, invalid rate %.2f)",
                settings.episodes(),
                settings.candidates(),
                settings.epsilon(),
                settings.invalidRate());
    }
}
