package dev.rwml.evaluation;

import java.util.List;
import java.util.Map;

/**
 * What {@code rwml eval} measured: per model, per held-out set, the figures overall, per task type
 * and per next-state kind, and the model's drift from its base.
 *
 * @param samples samples per transition
 * @param seed the seed of held-out episodes, sampling and bootstrap draws
 * @param bootstrap bootstrap resamples per interval
 * @param rewardSpecs the training reward specs scored against, per run ({@code --model-dir} models
 *     under their file's run name)
 * @param models one result per evaluated model, in the order given
 * @param agent the world-model-guided agent's settings, empty when it was not run
 * @param agents the agent's results per split: the agent without a world model first, then guided
 *     by each model
 */
public record EvalReport(
        int samples,
        long seed,
        int bootstrap,
        Map<String, String> rewardSpecs,
        List<ModelResult> models,
        String agent,
        List<AgentResult> agents) {

    /** A report without the agent's results. */
    public EvalReport(
            final int samples,
            final long seed,
            final int bootstrap,
            final Map<String, String> rewardSpecs,
            final List<ModelResult> models) {
        this(samples, seed, bootstrap, rewardSpecs, models, "", List.of());
    }

    /** The label of the agent without a world model. */
    public static final String NO_WORLD_MODEL = "no world model";

    /**
     * The guided agent over the episodes of one split, intervals by a bootstrap over episodes. A
     * model's avoidance is judged as a classifier of the offered candidates (precision and recall
     * of "does nothing" against the candidates drawn inadmissible) and against random avoidance at
     * its own rate on the same episodes.
     *
     * @param set the held-out split
     * @param agent {@link #NO_WORLD_MODEL}, the label of the model that guided it, or that of the
     *     random avoidance it is compared with
     * @param episodes episodes played
     * @param steps actions taken in all
     * @param invalidRate actions that did nothing per action taken
     * @param success episodes whose task was completed, per episode
     * @param stepsPerSuccess actions per completed episode, over completed episodes
     * @param avoidanceRate offered candidates avoided (predicted to do nothing) per candidate
     *     offered
     * @param precision avoided candidates that were inadmissible, per avoided candidate
     * @param recall inadmissible candidates avoided, per inadmissible candidate offered
     * @param randomBaseline the agent avoiding candidates at random at this one's avoidance rate on
     *     the same episodes and seeds, or null (the agent without a world model, and the baseline
     *     itself, have none)
     * @param invalidReduction the baseline's invalid-action rate minus this one's, paired by
     *     episode (above 0: the model avoids better than chance), or null without a baseline
     * @param rows the episodes, in episode order, for paired comparisons ({@link
     *     AgentEvaluation#invalidRateDifference})
     */
    public record AgentResult(
            String set,
            String agent,
            int episodes,
            int steps,
            Interval invalidRate,
            Interval success,
            Interval stepsPerSuccess,
            Interval avoidanceRate,
            Interval precision,
            Interval recall,
            AgentResult randomBaseline,
            Interval invalidReduction,
            List<GuidedAgent.Episode> rows) {

        public AgentResult {
            rows = List.copyOf(rows);
        }
    }

    /**
     * The figures of one group of transitions, intervals by a bootstrap over episodes.
     *
     * @param transitions transitions in the group
     * @param pass pass rate under the run's training reward spec
     * @param strict pass rate at the strict threshold (cosine above 0.9)
     * @param exact exact-match rate after whitespace normalisation
     * @param similarity mean similarity under the training spec's method
     * @param greedyPass pass rate of the greedy samples (temperature 0) under the training spec;
     *     NaN when greedy sampling is off
     * @param greedyStrict pass rate of the greedy samples at the strict threshold; NaN when greedy
     *     sampling is off
     * @param capped share of samples (greedy ones left out) that stopped at the token cap
     */
    public record Figures(
            int transitions,
            Interval pass,
            Interval strict,
            Interval exact,
            Interval similarity,
            Interval greedyPass,
            Interval greedyStrict,
            Interval capped) {}

    /**
     * One model on one held-out set.
     *
     * @param set the held-out set's name
     * @param transitions transitions scored
     * @param skipped transitions whose prompt does not fit the model's context
     * @param all figures over every scored transition
     * @param byTaskType figures per task type
     * @param byKind figures per next-state kind
     * @param rows each scored transition's figures, in the set's order: two models' rows pair by
     *     transition id ({@link Bootstrap#pair})
     */
    public record SetResult(
            String set,
            int transitions,
            int skipped,
            Figures all,
            Map<String, Figures> byTaskType,
            Map<String, Figures> byKind,
            List<TransitionScore> rows) {

        public SetResult {
            rows = List.copyOf(rows);
        }
    }

    /**
     * How far a model moved from its base (its run's version 0).
     *
     * @param baseLabel the base it is compared with
     * @param parameters the changed-parameter count
     * @param kl mean per-token KL(model || base) on each held-out text (keyed by environment)
     * @param perplexity the model's perplexity on each held-out text
     * @param texts target tokens' sequences per held-out text
     */
    public record Drift(
            String baseLabel,
            ParameterDrift parameters,
            Map<String, Double> kl,
            Map<String, Double> perplexity,
            Map<String, Integer> texts) {}

    /**
     * One model's results.
     *
     * @param label how the model is named in tables, e.g. {@code demo@12}
     * @param run the run
     * @param version the version
     * @param sets the results per held-out set
     * @param drift the drift from its base, or null without a base
     * @param seconds time the model's evaluation took
     */
    public record ModelResult(
            String label,
            String run,
            long version,
            List<SetResult> sets,
            Drift drift,
            double seconds) {}
}
