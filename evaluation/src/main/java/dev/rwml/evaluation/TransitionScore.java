package dev.rwml.evaluation;

/**
 * One held-out transition's figures, each the mean over its samples: the unit the bootstrap
 * resamples, clustered by episode.
 *
 * @param transitionId the transition
 * @param episodeId the transition's episode: the cluster the bootstrap resamples
 * @param taskType the task type (ALFWorld {@code taskType}, tau2 {@code task_kind}), or {@code -}
 * @param kind the next-state kind: TEXT, TOOL_RESULT or USER_MESSAGE
 * @param pass fraction of samples rewarded under the training reward spec
 * @param strict fraction of samples above the strict threshold ({@link Scoring#STRICT_THRESHOLD})
 * @param exact fraction of samples equal to the observed state after whitespace normalisation
 * @param similarity mean similarity under the training spec's method
 * @param greedyPass whether the greedy sample (temperature 0) is rewarded under the training spec,
 *     1 or 0; NaN when greedy sampling is off
 * @param greedyStrict whether the greedy sample is above the strict threshold, 1 or 0; NaN when
 *     greedy sampling is off
 * @param capped fraction of samples (the greedy one left out) that stopped at the token cap
 */
public record TransitionScore(
        String transitionId,
        String episodeId,
        String taskType,
        String kind,
        double pass,
        double strict,
        double exact,
        double similarity,
        double greedyPass,
        double greedyStrict,
        double capped) {}
