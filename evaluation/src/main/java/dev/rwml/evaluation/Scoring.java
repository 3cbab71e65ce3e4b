package dev.rwml.evaluation;

import dev.rwml.events.Transition;
import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.generate.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Scores a transition's sampled predictions three ways: the run's training reward spec, the same
 * method at the strict threshold, and exact match after whitespace normalisation; and counts the
 * samples cut at the token cap. A missing or malformed {@code <next_state>} fails all three.
 */
public final class Scoring {

    /** Strict pass: similarity above 0.9 (cosine; for rounded ROUGE-L only a full match). */
    public static final double STRICT_THRESHOLD = 0.9;

    private static final RewardSpec EXACT = RewardSpec.exactMatch();

    private final RewardSpecTable specs;
    private final SimilarityScorer scorer;

    /**
     * @param specs the training reward specs (per environment and next-state kind)
     * @param scorer the similarity scorer with the run's embedding model
     */
    public Scoring(final RewardSpecTable specs, final SimilarityScorer scorer) {
        this.specs = specs;
        this.scorer = scorer;
    }

    /** The strict spec of a training spec: the same method, the threshold raised to 0.9. */
    public static RewardSpec strict(final RewardSpec training) {
        return new RewardSpec(training.method(), Math.max(training.threshold(), STRICT_THRESHOLD));
    }

    /** The task type a transition is reported under. */
    public static String taskType(final Transition t) {
        final var metadata = t.getMetadata();
        for (final String key : new String[] {"taskType", "task_type", "task_kind"}) {
            final String value = metadata.get(key);
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return "-";
    }

    /**
     * Scores the samples of one transition, and its greedy sample when there is one; a sample whose
     * {@code <next_state>} is malformed fails every figure.
     *
     * @param samples the samples at the evaluation's temperature, at least one
     * @param greedy the sample at temperature 0, empty when greedy sampling is off
     */
    public TransitionScore score(
            final Transition t, final List<Sample> samples, final Optional<Sample> greedy) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("a transition needs at least one sample to score");
        }
        final RewardSpec spec = specs.specFor(t.getEnv().getName(), t.getNextKind());
        final RewardSpec strict = strict(spec);
        final String observed = t.getNextObservation();
        final List<String> predictions = new ArrayList<>(samples.size() + 1);
        int capped = 0;
        for (final Sample s : samples) {
            predictions.add(s.prediction().orElse(null));
            if (s.stopReason() == Sample.StopReason.LENGTH) {
                capped++;
            }
        }
        greedy.ifPresent(g -> predictions.add(g.prediction().orElse(null)));
        final double[] sims = scorer.similarities(spec, observed, predictions);
        final double[] exact = scorer.similarities(EXACT, observed, predictions);
        double pass = 0;
        double strictPass = 0;
        double exactPass = 0;
        double similarity = 0;
        final int n = samples.size();
        for (int i = 0; i < n; i++) {
            pass += spec.reward(sims[i]);
            strictPass += strict.reward(sims[i]);
            exactPass += exact[i];
            similarity += sims[i];
        }
        return new TransitionScore(
                t.getTransitionId(),
                t.getEpisodeId(),
                taskType(t),
                t.getNextKind().name(),
                pass / n,
                strictPass / n,
                exactPass / n,
                similarity / n,
                greedy.isPresent() ? spec.reward(sims[n]) : Double.NaN,
                greedy.isPresent() ? strict.reward(sims[n]) : Double.NaN,
                (double) capped / n);
    }
}
