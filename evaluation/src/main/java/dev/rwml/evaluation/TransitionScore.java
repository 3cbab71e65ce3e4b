package dev.rwml.evaluation;

/**
 * One held-out transition's figures, each the mean over its samples: the unit the bootstrap
 * resamples.
 *
 * @param transitionId the transition
 * @param taskType the task type (ALFWorld {@code taskType}, tau2 {@code task_kind}), or {@code -}
 * @param kind the next-state kind: TEXT, TOOL_RESULT or USER_MESSAGE
 * @param pass fraction of samples rewarded under the training reward spec
 * @param strict fraction of samples above the strict threshold ({@link Scoring#STRICT_THRESHOLD})
 * @param exact fraction of samples equal to the observed state after whitespace normalisation
 * @param similarity mean similarity under the training spec's method
 */
public record TransitionScore(
        String transitionId,
        String taskType,
        String kind,
        double pass,
        double strict,
        double exact,
        double similarity) {}
