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
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The downstream check of a world model: an agent that, at each step, has a few candidate actions
 * (the epsilon-expert's draws, some of them inadmissible, and one draw without inadmissible ones at
 * a random position, so one admissible candidate always exists but its place tells nothing), asks
 * the world model for each candidate's next observation, and takes the first one not predicted to
 * do nothing ({@code Nothing happens.} in ALFWorld, an {@code Error:} result in tau2). Without a
 * world model it takes the first candidate.
 *
 * <p>Every agent draws the same candidates in the same state (the candidates are drawn before the
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
     * @param candidates candidate actions per step, at least 2 (one, at a random position, never
     *     inadmissible)
     * @param epsilon probability that a draw is a random admissible action
     * @param invalidRate probability that a draw (other than the admissible one) is inadmissible
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
     * One episode, with what the world model told apart: the candidates of each step with more than
     * one are offered to it (to every agent alike, so the agent without a world model offers the
     * same kind of candidates and avoids none).
     *
     * @param episode the episode number (the same game for every agent)
     * @param steps actions taken
     * @param invalid actions whose result did nothing
     * @param success whether the task was completed (a positive reward)
     * @param offered candidates offered to the world model
     * @param invalidOffered offered candidates that were drawn inadmissible
     * @param avoided offered candidates predicted to do nothing (passed over unless every candidate
     *     of the step was)
     * @param avoidedInvalid avoided candidates that were drawn inadmissible
     */
    public record Episode(
            int episode,
            int steps,
            int invalid,
            boolean success,
            int offered,
            int invalidOffered,
            int avoided,
            int avoidedInvalid) {}

    /** A candidate action, and whether it was drawn inadmissible. */
    record Candidate(String action, boolean inadmissible) {}

    /** What a world model says of an action that does nothing (ALFWorld's words). */
    private static final String NOTHING = "Nothing happens.";

    /** Salts the random avoidance's draws, so they are not the episode's own. */
    private static final long RANDOM_AVOIDANCE = Bootstrap.fnv("random avoidance");

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
        int offered = 0;
        int invalidOffered = 0;
        int avoided = 0;
        int avoidedInvalid = 0;
        boolean success = false;
        while (!env.done() && steps < 1_000) {
            final List<Candidate> candidates = candidates(env, rng);
            int chosen = 0;
            if (candidates.size() > 1) {
                offered += candidates.size();
                invalidOffered += (int) candidates.stream().filter(Candidate::inadmissible).count();
            }
            if (foresight != null && candidates.size() > 1) {
                final List<Transition> asked = new ArrayList<>();
                for (final Candidate c : candidates) {
                    asked.add(transition(source, env, history, n, steps, c.action()));
                }
                final List<List<String>> predicted =
                        foresight.predict(asked, seed ^ Bootstrap.fnv(n + "/" + steps));
                chosen = -1;
                for (int i = 0; i < candidates.size(); i++) {
                    if (predictsNothing(predicted.get(i))) {
                        avoided++;
                        avoidedInvalid += candidates.get(i).inadmissible() ? 1 : 0;
                    } else if (chosen < 0) {
                        chosen = i;
                    }
                }
                if (chosen < 0) {
                    // Everything is predicted to do nothing: act as the agent without a model.
                    chosen = 0;
                }
            }
            final String action = candidates.get(chosen).action();
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
        return new Episode(
                n, steps, invalid, success, offered, invalidOffered, avoided, avoidedInvalid);
    }

    /**
     * A world model that knows nothing: it predicts each candidate to do nothing with probability
     * {@code rate}, independently, seeded by the step's seed. Played at a model's avoidance rate on
     * the same episodes, it is the null agent a model must beat.
     */
    public static Foresight randomAvoidance(final double rate) {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("an avoidance rate is in [0, 1], got " + rate);
        }
        return (candidates, seed) -> {
            final SplittableRandom random = new SplittableRandom(seed ^ RANDOM_AVOIDANCE);
            final List<List<String>> out = new ArrayList<>();
            for (int i = 0; i < candidates.size(); i++) {
                out.add(random.nextDouble() < rate ? List.of(NOTHING) : List.of());
            }
            return out;
        };
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

    /**
     * The step's candidates, distinct, in random order; one draw is never inadmissible. The rng
     * advances the same whatever the agent does with them.
     *
     * <p>Shuffled after repeats are dropped: the expert's action is often drawn twice, and keeping
     * the first of each in draw order moved admissible candidates forward, which made random
     * avoidance look worse than choosing with no model at all (by about 0.006-0.009 of invalid
     * actions) and so inflated every model's reduction against it.
     */
    List<Candidate> candidates(final Environment env, final SplittableRandom rng) {
        final int admissibleDraw = rng.nextInt(settings.candidates());
        final Map<String, Candidate> out = new LinkedHashMap<>();
        for (int i = 0; i < settings.candidates(); i++) {
            final double draw = rng.nextDouble();
            final Candidate candidate;
            if (i != admissibleDraw && draw < settings.invalidRate()) {
                candidate = new Candidate(env.inadmissibleAction(rng), true);
            } else if (draw < settings.invalidRate() + settings.epsilon()
                    || env.expertAction().isEmpty()) {
                final List<String> admissible = env.admissibleActions();
                candidate = new Candidate(admissible.get(rng.nextInt(admissible.size())), false);
            } else {
                candidate = new Candidate(env.expertAction().get(), false);
            }
            out.putIfAbsent(candidate.action(), candidate);
        }
        final List<Candidate> shuffled = new ArrayList<>(out.values());
        for (int i = shuffled.size() - 1; i > 0; i--) {
            Collections.swap(shuffled, i, rng.nextInt(i + 1));
        }
        return shuffled;
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
