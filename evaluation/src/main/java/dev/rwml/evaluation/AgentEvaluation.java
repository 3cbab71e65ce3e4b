package dev.rwml.evaluation;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Plays the {@link GuidedAgent} over episodes of held-out splits, without a world model or guided
 * by one, and sums up the episodes with bootstrap intervals over episodes. Episode i of a split is
 * the same game for every agent, and the bootstrap draws the same episodes for every agent, so
 * agents are compared episode by episode. A model is played a second time with random avoidance at
 * its own avoidance rate, the null agent it must beat.
 */
public final class AgentEvaluation {

    private final List<String> splits;
    private final GuidedAgent agent;
    private final GuidedAgent.Settings settings;
    private final long seed;
    private final int resamples;
    private final Bootstrap bootstrap;
    private final int samples;

    /**
     * @param splits generated held-out splits ({@link HeldOutSet#SPLITS})
     * @param settings the agent's settings
     * @param seed the seed of episodes, sampling and bootstrap draws
     * @param resamples bootstrap resamples per interval
     * @param samples predictions asked per candidate (avoided when at least half do nothing)
     */
    public AgentEvaluation(
            final List<String> splits,
            final GuidedAgent.Settings settings,
            final long seed,
            final int resamples,
            final int samples) {
        if (samples < 1) {
            throw new IllegalArgumentException(
                    "--agent-samples must be at least 1, got " + samples);
        }
        this.samples = samples;
        splits.forEach(HeldOutSet::sources); // fail fast on an unknown split
        this.splits = List.copyOf(splits);
        this.settings = settings;
        this.agent = new GuidedAgent(settings);
        this.seed = seed;
        this.resamples = resamples;
        this.bootstrap = new Bootstrap(resamples, seed);
    }

    /** The splits played. */
    public List<String> splits() {
        return splits;
    }

    /** The settings, in words. */
    public String describe() {
        return agent.describe() + ", " + samples + " predictions per candidate";
    }

    /** Predictions asked per candidate. */
    public int samples() {
        return samples;
    }

    /**
     * The agent on each split, guided by {@code foresight} (null: without a world model); a guided
     * agent's result carries random avoidance at its avoidance rate on the same episodes.
     */
    public List<EvalReport.AgentResult> play(
            final String label,
            final GuidedAgent.Foresight foresight,
            final Evaluation.Progress progress) {
        final List<EvalReport.AgentResult> out = new ArrayList<>();
        for (final String split : splits) {
            final List<GuidedAgent.Episode> episodes = episodes(split, label, foresight, progress);
            EvalReport.AgentResult random = null;
            if (foresight != null) {
                final String randomLabel = "random avoidance at " + label;
                final GuidedAgent.Foresight chance =
                        GuidedAgent.randomAvoidance(avoidanceRate(episodes));
                random =
                        summarise(
                                split,
                                randomLabel,
                                episodes(split, randomLabel, chance, progress),
                                null);
            }
            out.add(summarise(split, label, episodes, random));
        }
        return out;
    }

    private List<GuidedAgent.Episode> episodes(
            final String split,
            final String label,
            final GuidedAgent.Foresight foresight,
            final Evaluation.Progress progress) {
        final List<EnvironmentSource> sources = HeldOutSet.sources(split);
        final List<GuidedAgent.Episode> episodes = new ArrayList<>();
        final long started = System.nanoTime();
        for (int n = 0; n < settings.episodes(); n++) {
            episodes.add(agent.run(sources.get(n % sources.size()), n, seed, foresight));
        }
        progress.line(
                String.format(
                        Locale.ROOT,
                        "eval: agent (%s) on %s: %d episodes (%.0f s)",
                        label,
                        split,
                        episodes.size(),
                        (System.nanoTime() - started) / 1e9));
        return episodes;
    }

    /** Avoided per offered candidate over all episodes; 0 when nothing was offered. */
    private static double avoidanceRate(final List<GuidedAgent.Episode> episodes) {
        long avoided = 0;
        long offered = 0;
        for (final GuidedAgent.Episode e : episodes) {
            avoided += e.avoided();
            offered += e.offered();
        }
        return offered == 0 ? 0 : (double) avoided / offered;
    }

    EvalReport.AgentResult summarise(
            final String split,
            final String label,
            final List<GuidedAgent.Episode> episodes,
            final EvalReport.AgentResult randomBaseline) {
        final int n = episodes.size();
        final double[][] c = new double[9][n];
        long totalSteps = 0;
        for (int i = 0; i < n; i++) {
            final GuidedAgent.Episode e = episodes.get(i);
            c[0][i] = e.steps();
            c[1][i] = e.invalid();
            c[2][i] = e.success() ? 1 : 0;
            c[3][i] = 1;
            c[4][i] = e.success() ? e.steps() : 0;
            c[5][i] = e.offered();
            c[6][i] = e.avoided();
            c[7][i] = e.avoidedInvalid();
            c[8][i] = e.invalidOffered();
            totalSteps += e.steps();
        }
        final String key = key(split);
        return new EvalReport.AgentResult(
                split,
                label,
                n,
                (int) totalSteps,
                bootstrap.ratio(c[1], c[0], key),
                bootstrap.ratio(c[2], c[3], key),
                bootstrap.ratio(c[4], c[2], key),
                bootstrap.ratio(c[6], c[5], key),
                bootstrap.ratio(c[7], c[6], key),
                bootstrap.ratio(c[7], c[8], key),
                randomBaseline,
                randomBaseline == null
                        ? null
                        : difference(randomBaseline.rows(), episodes, split, resamples, seed),
                episodes);
    }

    private static String key(final String split) {
        return "agent|" + split;
    }

    /**
     * The invalid-action rate of {@code a} minus that of {@code b}, with its 95% percentile
     * bootstrap interval over episodes: each replicate draws episode numbers with replacement and
     * takes both agents' rates (actions that did nothing per action taken) on the same episodes, so
     * what the episodes share cancels out. Replicates where either agent took no action are left
     * out. The same seed gives the same draws as the agents' own intervals.
     *
     * @param a an agent's result
     * @param b another agent's result on the same split and episodes
     * @param resamples bootstrap replicates, at least 1
     * @param seed the seed of the draws
     * @throws IllegalArgumentException when the two did not play the same episodes
     */
    public static Interval invalidRateDifference(
            final EvalReport.AgentResult a,
            final EvalReport.AgentResult b,
            final int resamples,
            final long seed) {
        if (resamples < 1) {
            throw new IllegalArgumentException(
                    "--bootstrap must be at least 1 resample, got " + resamples);
        }
        final int n = a.rows().size();
        if (!a.set().equals(b.set())
                || b.rows().size() != n
                || !episodeNumbers(a).equals(episodeNumbers(b))) {
            throw new IllegalArgumentException(
                    "a paired difference needs the same episodes: "
                            + a.agent()
                            + " played "
                            + n
                            + " of "
                            + a.set()
                            + ", "
                            + b.agent()
                            + " "
                            + b.rows().size()
                            + " of "
                            + b.set()
                            + "; play both with the same AgentEvaluation");
        }
        return difference(a.rows(), b.rows(), a.set(), resamples, seed);
    }

    private static Interval difference(
            final List<GuidedAgent.Episode> a,
            final List<GuidedAgent.Episode> b,
            final String split,
            final int resamples,
            final long seed) {
        final int n = a.size();
        final double estimate = rate(a, null) - rate(b, null);
        if (n == 0 || Double.isNaN(estimate)) {
            return new Interval(Double.NaN, Double.NaN, Double.NaN);
        }
        final SplittableRandom random = new SplittableRandom(seed ^ Bootstrap.fnv(key(split)));
        final double[] replicates = new double[resamples];
        final int[] draw = new int[n];
        int kept = 0;
        for (int r = 0; r < resamples; r++) {
            for (int i = 0; i < n; i++) {
                draw[i] = random.nextInt(n);
            }
            final double d = rate(a, draw) - rate(b, draw);
            if (!Double.isNaN(d)) {
                replicates[kept++] = d;
            }
        }
        if (kept == 0) {
            return new Interval(estimate, Double.NaN, Double.NaN);
        }
        final double[] sorted = Arrays.copyOf(replicates, kept);
        Arrays.sort(sorted);
        return new Interval(
                estimate, Bootstrap.quantile(sorted, 0.025), Bootstrap.quantile(sorted, 0.975));
    }

    private static List<Integer> episodeNumbers(final EvalReport.AgentResult r) {
        return r.rows().stream().map(GuidedAgent.Episode::episode).toList();
    }

    /**
     * Invalid actions per action over the drawn episodes (all, in order, when null); NaN if none.
     */
    private static double rate(final List<GuidedAgent.Episode> rows, final int[] draw) {
        long invalid = 0;
        long steps = 0;
        for (int i = 0; i < (draw == null ? rows.size() : draw.length); i++) {
            final GuidedAgent.Episode e = rows.get(draw == null ? i : draw[i]);
            invalid += e.invalid();
            steps += e.steps();
        }
        return steps == 0 ? Double.NaN : (double) invalid / steps;
    }

    /**
     * Asks a loaded world model: {@code samples} next observations per candidate, sampled as the
     * held-out figures are.
     */
    public static GuidedAgent.Foresight foresight(
            final PredictionModel predictor, final EvalSettings settings, final int samples) {
        final int budget = settings.promptBudget(predictor.maxContext());
        final SamplingSettings sampling =
                new SamplingSettings(
                        samples, settings.temperature(), settings.topP(), settings.maxNewTokens());
        return (candidates, seed) -> {
            final List<int[]> prompts = new ArrayList<>();
            final List<Integer> fitting = new ArrayList<>();
            for (int i = 0; i < candidates.size(); i++) {
                final Transition t = candidates.get(i);
                final Prompt prompt = predictor.prompt(t, budget);
                if (prompt.fits()) {
                    fitting.add(i);
                    prompts.add(prompt.tokenIds());
                }
            }
            final List<List<String>> out = new ArrayList<>();
            candidates.forEach(c -> out.add(List.of()));
            if (prompts.isEmpty()) {
                return out;
            }
            final List<List<Sample>> groups = predictor.sample(prompts, sampling, seed);
            for (int k = 0; k < fitting.size(); k++) {
                final List<String> texts = new ArrayList<>();
                for (final Sample s : groups.get(k)) {
                    texts.add(s.prediction().orElse(null));
                }
                out.set(fitting.get(k), texts);
            }
            return out;
        };
    }
}
