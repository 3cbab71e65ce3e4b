package dev.rwml.filter;

import dev.rwml.events.Difficulty;
import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.scoring.group.KeepDecision;
import dev.rwml.scoring.group.SubsamplePolicy;
import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.RejectedTransitionException;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.TransitionRules;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The paper's difficulty filter for one transition: the filter model predicts its next state K
 * times from what the agent saw before acting, each try is scored against the observed next state
 * with the run's similarity, and {@link SubsamplePolicy} judges it: EASY when at least {@code
 * easy.min.passes} tries exceed the stricter data-stage threshold, kept then with probability
 * {@code easy.keep.probability} (a hash of the transition id and the seed); HARD when no try is
 * rewarded at the training threshold; INFORMATIVE otherwise.
 */
public final class DifficultyJudge {

    private final String run;
    private final String filterRun;
    private final PredictionModel model;
    private final SamplingSettings sampling;
    private final int promptBudget;
    private final RewardSpecTable specs;
    private final SimilarityScorer scorer;
    private final SubsamplePolicy policy;
    private final int maxTextChars;
    private final Clock clock;

    /**
     * @param config the stage's settings
     * @param model the filter model (its version is recorded in every verdict)
     * @param scorer computes similarities with the run's embedding model
     * @param clock stamps {@code judgedAt}
     */
    public DifficultyJudge(
            final FilterConfig config,
            final PredictionModel model,
            final SimilarityScorer scorer,
            final Clock clock) {
        this.run = config.run();
        this.filterRun = config.filterRun();
        this.model = Objects.requireNonNull(model, "model");
        this.sampling = config.sampling();
        this.promptBudget = config.promptBudget(model.maxContext());
        this.specs = config.rewardSpecs();
        this.scorer = Objects.requireNonNull(scorer, "scorer");
        this.policy = config.subsample();
        this.maxTextChars = config.maxTextChars();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Samples K tries for the transition and judges it.
     *
     * @throws RejectedTransitionException when the transition cannot be judged (invalid fields, an
     *     over-long next observation, a prompt that does not fit even without history); the stage
     *     dead-letters it
     */
    public TransitionDifficulty judge(final String key, final Transition transition) {
        if (transition == null) {
            throw new RejectedTransitionException(
                    "value is null (a tombstone): transitions are never deleted, so this is not one");
        }
        final String invalid =
                TransitionRules.invalidReason(
                        key == null ? null : key.getBytes(StandardCharsets.UTF_8), transition);
        if (invalid != null) {
            throw new RejectedTransitionException(invalid);
        }
        if (transition.getNextObservation().length() > maxTextChars) {
            throw new RejectedTransitionException(
                    "next observation has "
                            + transition.getNextObservation().length()
                            + " characters, more than max.text.chars="
                            + maxTextChars);
        }
        final Prompt prompt = model.prompt(transition, promptBudget);
        if (!prompt.fits()) {
            throw new RejectedTransitionException(
                    "prompt does not fit in "
                            + promptBudget
                            + " tokens even without history; raise prompt.max.tokens or use a"
                            + " model with a longer context");
        }
        final List<Sample> tries =
                model.sample(List.of(prompt.tokenIds()), sampling, seed(transition)).get(0);
        final List<String> predictions = new ArrayList<>(tries.size());
        for (final Sample t : tries) {
            predictions.add(t.prediction().orElse(null));
        }
        return judge(transition, predictions);
    }

    /** Judges a transition from its tries' predicted next states (null where none parsed). */
    TransitionDifficulty judge(final Transition transition, final List<String> predictions) {
        final RewardSpec spec =
                specs.specFor(transition.getEnv().getName(), transition.getNextKind());
        final double[] similarity =
                scorer.similarities(spec, transition.getNextObservation(), predictions);
        final double[] rewards = new double[similarity.length];
        final double easyThreshold = policy.easyThresholds().get(transition.getNextKind());
        int easyPasses = 0;
        int rewardPasses = 0;
        double sum = 0;
        double max = 0;
        for (int i = 0; i < similarity.length; i++) {
            rewards[i] = spec.reward(similarity[i]);
            easyPasses += similarity[i] > easyThreshold ? 1 : 0;
            rewardPasses += rewards[i] > 0 ? 1 : 0;
            sum += similarity[i];
            max = Math.max(max, similarity[i]);
        }
        final Difficulty difficulty =
                policy.difficulty(transition.getNextKind(), similarity, rewards);
        final KeepDecision decision = policy.decide(transition.getTransitionId(), difficulty);
        return TransitionDifficulty.newBuilder()
                .setTransitionId(transition.getTransitionId())
                .setRun(run)
                .setEnv(transition.getEnv())
                .setNextKind(transition.getNextKind())
                .setFilterRun(filterRun)
                .setFilterVersion(model.version())
                .setTries(similarity.length)
                .setEasyPasses(easyPasses)
                .setRewardPasses(rewardPasses)
                .setMeanSimilarity(similarity.length == 0 ? 0 : sum / similarity.length)
                .setMaxSimilarity(max)
                .setEasyThreshold(easyThreshold)
                .setDifficulty(difficulty)
                .setKept(decision.kept())
                .setKeepReason(decision.reason())
                .setJudgedAt(clock.instant())
                .build();
    }

    /**
     * A seed from the transition id, so a transition judged again after a crash is judged alike.
     */
    private static long seed(final Transition transition) {
        return 0x9E3779B97F4A7C15L ^ transition.getTransitionId().hashCode();
    }
}
