package dev.rwml.reward;

import dev.rwml.events.Difficulty;
import dev.rwml.events.GroupStats;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.RewardSpecRef;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.events.Transition;
import dev.rwml.schemas.rules.GroupSize;
import dev.rwml.scoring.group.AdvantageMode;
import dev.rwml.scoring.group.GroupStatistics;
import dev.rwml.scoring.group.KeepDecision;
import dev.rwml.scoring.group.SubsamplePolicy;
import dev.rwml.scoring.score.RewardMethod;
import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Turns a prediction group and the transition it predicted into a rewarded group: similarity and
 * binary reward per sample, group statistics, advantages and the keep decision.
 */
public final class GroupRewarder {

    private final String run;
    private final RewardSpecTable specs;
    private final SimilarityScorer scorer;
    private final AdvantageMode advantageMode;
    private final double epsilon;
    private final SubsamplePolicy subsample;
    private final int maxTextChars;
    private final RewardMetrics metrics;
    private final Clock clock;

    /**
     * @param run the run whose rewards topic the groups go to (a rescore names the new run)
     * @param specs the reward spec of each environment and next-state kind
     * @param scorer computes similarities
     * @param advantageMode GRPO or Dr. GRPO
     * @param epsilon added to the std in GRPO advantages
     * @param subsample too-easy subsampling
     * @param maxTextChars longer observed or predicted states are rejected as invalid input
     * @param metrics where scores and decisions are counted
     * @param clock stamps {@code rewardedAt}
     */
    public GroupRewarder(
            final String run,
            final RewardSpecTable specs,
            final SimilarityScorer scorer,
            final AdvantageMode advantageMode,
            final double epsilon,
            final SubsamplePolicy subsample,
            final int maxTextChars,
            final RewardMetrics metrics,
            final Clock clock) {
        this.run = Objects.requireNonNull(run, "run");
        this.specs = Objects.requireNonNull(specs, "specs");
        this.scorer = Objects.requireNonNull(scorer, "scorer");
        this.advantageMode = Objects.requireNonNull(advantageMode, "advantageMode");
        this.epsilon = epsilon;
        this.subsample = Objects.requireNonNull(subsample, "subsample");
        this.maxTextChars = maxTextChars;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Scores the group.
     *
     * @throws InvalidGroupException when the pair cannot be scored (no samples, ids that differ,
     *     oversized text); the stage sends it to the dead-letter topic
     */
    public RewardedGroup reward(final PredictionGroup group, final Transition transition) {
        final long start = System.nanoTime();
        validate(group, transition);
        final RewardSpec spec =
                specs.specFor(transition.getEnv().getName(), transition.getNextKind());
        final List<PredictionSample> samples = group.getSamples();
        final List<String> predictions = new ArrayList<>(samples.size());
        for (final PredictionSample sample : samples) {
            predictions.add(sample.getPredictedNextState());
        }
        final double[] similarity =
                scorer.similarities(spec, transition.getNextObservation(), predictions);
        final double[] rewards = new double[similarity.length];
        for (int i = 0; i < similarity.length; i++) {
            rewards[i] = spec.reward(similarity[i]);
            metrics.similarity(spec.method().wireName(), similarity[i]);
        }
        final GroupStatistics stats = GroupStatistics.of(rewards, advantageMode, epsilon);
        final Difficulty difficulty =
                subsample.difficulty(transition.getNextKind(), similarity, rewards);
        final KeepDecision decision = subsample.decide(group.getTransitionId(), difficulty);
        final RewardedGroup rewarded =
                RewardedGroup.newBuilder()
                        .setTransitionId(group.getTransitionId())
                        .setRun(run)
                        .setModelVersion(group.getModelVersion())
                        .setEnv(transition.getEnv())
                        .setNextKind(transition.getNextKind())
                        .setPromptTokenIds(group.getPromptTokenIds())
                        .setObservedNextState(transition.getNextObservation())
                        .setSamples(rewardedSamples(samples, similarity, rewards, stats))
                        .setStats(
                                GroupStats.newBuilder()
                                        .setMeanReward(stats.mean())
                                        .setStdReward(stats.std())
                                        .setPassRate(stats.passRate())
                                        .build())
                        .setDifficulty(difficulty)
                        .setKept(decision.kept())
                        .setKeepReason(decision.reason())
                        .setRewardSpec(specRef(spec))
                        .setSampling(group.getSampling())
                        .setGeneratingRun(group.getRun())
                        .setGeneratedAt(group.getGeneratedAt())
                        .setRewardedAt(clock.instant())
                        .build();
        metrics.groupRewarded(
                difficulty.name(),
                decision,
                stats.passRate(),
                Duration.ofNanos(System.nanoTime() - start));
        return rewarded;
    }

    private void validate(final PredictionGroup group, final Transition transition) {
        if (!group.getTransitionId().equals(transition.getTransitionId())) {
            throw new InvalidGroupException(
                    "prediction group for "
                            + group.getTransitionId()
                            + " joined transition "
                            + transition.getTransitionId()
                            + "; keys and transitionId fields must agree");
        }
        if (group.getSamples().isEmpty()) {
            throw new InvalidGroupException(
                    "prediction group " + group.getTransitionId() + " has no samples");
        }
        final String size = GroupSize.mismatch(group.getSamples().size(), group.getSampling());
        if (size != null) {
            throw new InvalidGroupException(
                    "prediction group " + group.getTransitionId() + " has " + size);
        }
        checkLength("observed next state", transition.getNextObservation());
        for (final PredictionSample sample : group.getSamples()) {
            if (sample.getPredictedNextState() != null) {
                checkLength("predicted next state", sample.getPredictedNextState());
            }
            if (sample.getLogprobs().size() != sample.getTokenIds().size()) {
                throw new InvalidGroupException(
                        "prediction group "
                                + group.getTransitionId()
                                + " has a sample with "
                                + sample.getTokenIds().size()
                                + " tokens but "
                                + sample.getLogprobs().size()
                                + " logprobs");
            }
            final List<Float> logprobs = sample.getLogprobs();
            for (int i = 0; i < logprobs.size(); i++) {
                if (sample.getTokenIds().get(i) < 0) {
                    throw new InvalidGroupException(
                            "prediction group "
                                    + group.getTransitionId()
                                    + " has token id "
                                    + sample.getTokenIds().get(i)
                                    + " at token "
                                    + i);
                }
                // -inf would make the trainer's ratio exp(logp - behaviour) infinite
                final float logprob = logprobs.get(i);
                if (!Float.isFinite(logprob) || logprob > 0) {
                    throw new InvalidGroupException(
                            "prediction group "
                                    + group.getTransitionId()
                                    + " has a behaviour log-prob at token "
                                    + i
                                    + " that is not finite and <= 0: "
                                    + logprob
                                    + "; the predictor recorded it from a distribution that"
                                    + " gave its own sample no probability");
                }
            }
        }
    }

    private void checkLength(final String what, final String text) {
        if (text.length() > maxTextChars) {
            throw new InvalidGroupException(
                    what
                            + " has "
                            + text.length()
                            + " characters, more than max.text.chars="
                            + maxTextChars);
        }
    }

    private static List<RewardedSample> rewardedSamples(
            final List<PredictionSample> samples,
            final double[] similarity,
            final double[] rewards,
            final GroupStatistics stats) {
        final List<RewardedSample> out = new ArrayList<>(samples.size());
        for (int i = 0; i < samples.size(); i++) {
            final PredictionSample sample = samples.get(i);
            out.add(
                    RewardedSample.newBuilder()
                            .setText(sample.getText())
                            .setPredictedNextState(sample.getPredictedNextState())
                            .setTokenIds(sample.getTokenIds())
                            .setLogprobs(sample.getLogprobs())
                            .setSimilarity(similarity[i])
                            .setReward(rewards[i])
                            .setAdvantage(stats.advantages()[i])
                            .build());
        }
        return out;
    }

    private RewardSpecRef specRef(final RewardSpec spec) {
        return RewardSpecRef.newBuilder()
                .setMethod(spec.method().wireName())
                .setEmbeddingModel(
                        spec.method() == RewardMethod.EMBEDDING_COSINE
                                ? scorer.embeddingModel()
                                : null)
                .setThreshold(spec.threshold())
                .build();
    }
}
