package dev.rwml.evaluation;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures world-model accuracy on held-out ALFWorld transitions: {@code rwml eval}'s {@code
 * alfworld/valid_seen} set, episodes run here and never produced to the transitions topic. A
 * version's score is the pass rate of its sampled predictions under the run's reward spec, the same
 * reward the trainer optimises, scored as {@code rwml eval} scores.
 */
public final class HeldOutEvaluator {

    /** The held-out set, as {@code rwml eval --split} names it. */
    public static final String SET = "alfworld/valid_seen";

    private final List<Transition> transitions;
    private final Scoring scoring;
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
            Interval passInterval) {

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
                    new Interval(passRate, passRate, passRate));
        }
    }

    /**
     * @param transitions the held-out transitions ({@link HeldOutSet#generate} of {@link #SET})
     * @param scoring the run's reward specs and similarity scorer, as {@code rwml eval} scores
     * @param sampling samples per transition, temperature and completion length
     * @param maxPromptTokens prompt budget, as in the prediction stage
     */
    public HeldOutEvaluator(
            final List<Transition> transitions,
            final Scoring scoring,
            final SamplingSettings sampling,
            final int maxPromptTokens) {
        if (transitions.isEmpty()) {
            throw new IllegalArgumentException("the held-out set is empty");
        }
        this.transitions = List.copyOf(transitions);
        this.scoring = scoring;
        this.sampling = sampling;
        this.maxPromptTokens = maxPromptTokens;
    }

    /** Scores one version; {@code versions} gives its base when it is a LoRA adapter. */
    public Score evaluate(final VerifiedArtifact artifact, final ArtifactSource versions) {
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel model = loader.load(artifact, versions)) {
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
            double passed = 0;
            double similarity = 0;
            final double[] passPerTransition = new double[scored.size()];
            for (int i = 0; i < scored.size(); i++) {
                final List<String> predictions = new ArrayList<>();
                for (final Sample s : groups.get(i)) {
                    predictions.add(s.prediction().orElse(null));
                }
                final TransitionScore score = scoring.score(scored.get(i), predictions);
                samples += predictions.size();
                passed += score.pass() * predictions.size();
                similarity += score.similarity() * predictions.size();
                passPerTransition[i] = score.pass();
            }
            // Samples per transition are equal, so the mean of per-transition rates is the rate.
            final Interval interval =
                    new Bootstrap(1000, 7).mean(passPerTransition, "demo-held-out");
            return new Score(
                    artifact.version(),
                    samples == 0 ? 0 : passed / samples,
                    samples == 0 ? 0 : similarity / samples,
                    samples,
                    interval);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "held-out evaluation of version " + artifact.version() + " failed: " + e, e);
        }
    }
}
