package dev.rwml.ops.cli.demo;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.produce.EnvKind;
import dev.rwml.env.produce.PolicyKind;
import dev.rwml.events.Transition;
import dev.rwml.reward.score.RewardSpec;
import dev.rwml.reward.score.RewardSpecTable;
import dev.rwml.reward.score.SimilarityScorer;
import dev.rwml.worldmodel.channel.VerifiedArtifact;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures world-model accuracy on held-out ALFWorld transitions: {@code valid_seen} episodes run
 * here and never produced to the transitions topic. A version's score is the pass rate of its
 * sampled predictions under the run's reward spec, the same reward the trainer optimises.
 */
public final class HeldOutEvaluator {

    /** The split the held-out transitions come from. */
    public static final String SPLIT = "valid_seen";

    private final List<Transition> transitions;
    private final RewardSpecTable specs;
    private final SimilarityScorer scorer;
    private final SamplingSettings sampling;
    private final int maxPromptTokens;

    /**
     * One version's score.
     *
     * @param version the model version
     * @param passRate the fraction of samples rewarded 1
     * @param meanSimilarity the mean similarity of samples to the observed next state
     * @param samples samples scored
     * @param passInterval the pass rate with its 95% bootstrap interval over transitions (the same
     *     draws for every version)
     */
    public record Score(
            long version,
            double passRate,
            double meanSimilarity,
            int samples,
            dev.rwml.ops.cli.eval.Interval passInterval) {

        /** A score without an interval (the interval is the estimate). */
        public Score(
                final long version,
                final double passRate,
                final double meanSimilarity,
                final int samples) {
            this(
                    version,
                    passRate,
                    meanSimilarity,
                    samples,
                    new dev.rwml.ops.cli.eval.Interval(passRate, passRate, passRate));
        }
    }

    /**
     * @param transitions the held-out transitions (see {@link #heldOut})
     * @param specs the run's reward specs
     * @param scorer the similarity scorer (the run's embedding model)
     * @param sampling samples per transition, temperature and completion length
     * @param maxPromptTokens prompt budget, as in the prediction stage
     */
    public HeldOutEvaluator(
            final List<Transition> transitions,
            final RewardSpecTable specs,
            final SimilarityScorer scorer,
            final SamplingSettings sampling,
            final int maxPromptTokens) {
        if (transitions.isEmpty()) {
            throw new IllegalArgumentException("the held-out set is empty");
        }
        this.transitions = List.copyOf(transitions);
        this.specs = specs;
        this.scorer = scorer;
        this.sampling = sampling;
        this.maxPromptTokens = maxPromptTokens;
    }

    /**
     * Runs epsilon-expert episodes of the {@code valid_seen} split until {@code count} transitions
     * are collected; the same seed gives the same set.
     */
    public static List<Transition> heldOut(final int count, final long seed, final double epsilon) {
        final EnvironmentSource source = EnvKind.ALFWORLD.source(SPLIT, Grammar.CURRENT);
        final List<Transition> out = new ArrayList<>(count);
        final Clock clock = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
        for (int n = 0; out.size() < count; n++) {
            final List<Transition> episode =
                    EpisodeRunner.withClock(clock)
                            .run(source, PolicyKind.EPSILON.agent(epsilon), "held-out", seed, n);
            for (final Transition t : episode) {
                if (out.size() < count) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /** Scores one version. */
    public Score evaluate(final VerifiedArtifact artifact) {
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel model = loader.load(artifact)) {
            final List<int[]> prompts = new ArrayList<>();
            final List<Transition> scored = new ArrayList<>();
            for (final Transition t : transitions) {
                final Prompt prompt = model.prompt(t, maxPromptTokens);
                if (prompt.fits()) {
                    prompts.add(prompt.tokenIds());
                    scored.add(t);
                }
            }
            final List<List<Sample>> groups = model.sample(prompts, sampling, 1234L);
            int samples = 0;
            int passed = 0;
            double similarity = 0;
            final double[] passPerTransition = new double[scored.size()];
            for (int i = 0; i < scored.size(); i++) {
                final Transition t = scored.get(i);
                final RewardSpec spec = specs.specFor(t.getEnv().getName(), t.getNextKind());
                final List<String> predictions = new ArrayList<>();
                for (final Sample s : groups.get(i)) {
                    predictions.add(s.prediction().orElse(null));
                }
                final double[] sims =
                        scorer.similarities(spec, t.getNextObservation(), predictions);
                int transitionPassed = 0;
                for (final double sim : sims) {
                    samples++;
                    similarity += sim;
                    transitionPassed += spec.reward(sim) > 0 ? 1 : 0;
                }
                passed += transitionPassed;
                passPerTransition[i] =
                        sims.length == 0 ? 0 : (double) transitionPassed / sims.length;
            }
            // Samples per transition are equal, so the mean of per-transition rates is the rate.
            final dev.rwml.ops.cli.eval.Interval interval =
                    new dev.rwml.ops.cli.eval.Bootstrap(1000, 7)
                            .mean(passPerTransition, "demo-held-out");
            return new Score(
                    artifact.version(),
                    samples == 0 ? 0 : (double) passed / samples,
                    samples == 0 ? 0 : similarity / samples,
                    samples,
                    interval);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "held-out evaluation of version " + artifact.version() + " failed: " + e, e);
        }
    }
}
