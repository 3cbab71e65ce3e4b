package dev.rwml.evaluation;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * Plays the {@link GuidedAgent} over episodes of held-out splits, without a world model or guided
 * by one, and sums up the episodes with bootstrap intervals over episodes. Episode i of a split is
 * the same game for every agent, and the bootstrap draws the same episodes for every agent.
 */
public final class AgentEvaluation {

    private final List<String> splits;
    private final GuidedAgent agent;
    private final GuidedAgent.Settings settings;
    private final long seed;
    private final Bootstrap bootstrap;
    private final int samples;

    /**
     * @param splits generated held-out splits ({@link HeldOutSet#SPLITS})
     * @param settings the agent's settings
     * @param seed the seed of episodes and sampling
     * @param bootstrap the bootstrap of the intervals
     * @param samples predictions asked per candidate (avoided when at least half do nothing)
     */
    public AgentEvaluation(
            final List<String> splits,
            final GuidedAgent.Settings settings,
            final long seed,
            final Bootstrap bootstrap,
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
        this.bootstrap = bootstrap;
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

    /** The agent on each split, guided by {@code foresight} (null: without a world model). */
    public List<EvalReport.AgentResult> play(
            final String label,
            final GuidedAgent.Foresight foresight,
            final Evaluation.Progress progress) {
        final List<EvalReport.AgentResult> out = new ArrayList<>();
        for (final String split : splits) {
            final List<EnvironmentSource> sources = HeldOutSet.sources(split);
            final List<GuidedAgent.Episode> episodes = new ArrayList<>();
            final long started = System.nanoTime();
            for (int n = 0; n < settings.episodes(); n++) {
                episodes.add(agent.run(sources.get(n % sources.size()), n, seed, foresight));
            }
            progress.line(
                    String.format(
                            java.util.Locale.ROOT,
                            "eval: agent (%s) on %s: %d episodes (%.0f s)",
                            label,
                            split,
                            episodes.size(),
                            (System.nanoTime() - started) / 1e9));
            out.add(summarise(split, label, episodes));
        }
        return out;
    }

    EvalReport.AgentResult summarise(
            final String split, final String label, final List<GuidedAgent.Episode> episodes) {
        final int n = episodes.size();
        final double[] steps = new double[n];
        final double[] invalid = new double[n];
        final double[] success = new double[n];
        final double[] ones = new double[n];
        final double[] successSteps = new double[n];
        long avoided = 0;
        long totalSteps = 0;
        for (int i = 0; i < n; i++) {
            final GuidedAgent.Episode e = episodes.get(i);
            steps[i] = e.steps();
            invalid[i] = e.invalid();
            success[i] = e.success() ? 1 : 0;
            ones[i] = 1;
            successSteps[i] = e.success() ? e.steps() : 0;
            avoided += e.avoided();
            totalSteps += e.steps();
        }
        final String key = "agent|" + split;
        return new EvalReport.AgentResult(
                split,
                label,
                n,
                (int) totalSteps,
                bootstrap.ratio(invalid, steps, key),
                bootstrap.ratio(success, ones, key),
                bootstrap.ratio(successSteps, success, key),
                totalSteps == 0 ? 0 : (double) avoided / totalSteps);
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
