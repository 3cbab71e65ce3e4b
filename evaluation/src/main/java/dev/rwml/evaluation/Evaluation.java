package dev.rwml.evaluation;

import dev.rwml.events.Transition;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Evaluates world models on held-out sets: samples each transition's next state from what the agent
 * saw (and, when asked, once more greedily), scores the samples against the observed state, and
 * bootstraps the figures over the set's episodes; then measures each model's drift from its run's
 * version 0. The same seed, sets and models give the same report.
 */
public final class Evaluation {

    /** Prompts sampled in one batch; fixed, so a transition's samples do not depend on others. */
    static final int BATCH = 16;

    /** Where progress lines go (stderr in the command). */
    public interface Progress {
        /** Ignores progress. */
        Progress NONE = line -> {};

        /** One line of progress. */
        void line(String text);

        /**
         * {@code done} of {@code total} transitions of one model on one held-out set ({@code what})
         * sampled and scored; by default the {@code line} that says so.
         */
        default void scored(final String what, final int done, final int total, final String line) {
            line(line);
        }
    }

    private final List<HeldOutSet> sets;
    private final Map<String, List<Transition>> driftTexts;
    private final Function<String, RewardSpecTable> specsOfRun;
    private final SimilarityScorer scorer;
    private final EvalSettings settings;
    private final Bootstrap bootstrap;
    private final Progress progress;
    private final AgentEvaluation agent;

    /**
     * @param sets the held-out sets scored
     * @param driftTexts held-out text per environment for KL and perplexity (may be empty)
     * @param specsOfRun the training reward specs of a run
     * @param scorer the similarity scorer (the runs' embedding model)
     * @param settings sampling and bootstrap settings
     * @param progress where progress lines go
     */
    public Evaluation(
            final List<HeldOutSet> sets,
            final Map<String, List<Transition>> driftTexts,
            final Function<String, RewardSpecTable> specsOfRun,
            final SimilarityScorer scorer,
            final EvalSettings settings,
            final Progress progress) {
        this(sets, driftTexts, specsOfRun, scorer, settings, progress, null);
    }

    /**
     * An evaluation that also plays the world-model-guided agent.
     *
     * @param agent the agent's splits and settings, or null to skip it
     */
    public Evaluation(
            final List<HeldOutSet> sets,
            final Map<String, List<Transition>> driftTexts,
            final Function<String, RewardSpecTable> specsOfRun,
            final SimilarityScorer scorer,
            final EvalSettings settings,
            final Progress progress,
            final AgentEvaluation agent) {
        this.agent = agent;
        if (sets.isEmpty() && agent == null) {
            throw new IllegalArgumentException("name at least one held-out set");
        }
        this.sets = List.copyOf(sets);
        this.driftTexts = new LinkedHashMap<>(driftTexts);
        this.specsOfRun = specsOfRun;
        this.scorer = scorer;
        this.settings = settings;
        this.bootstrap = new Bootstrap(settings.bootstrap(), settings.seed());
        this.progress = progress;
    }

    /** Evaluates every model of the catalog, in its order. */
    public EvalReport run(final ModelCatalog catalog) {
        final List<EvalReport.ModelResult> results = new ArrayList<>();
        final Map<String, String> specs = new LinkedHashMap<>();
        final Map<ModelRef, EvalModel> bases = new LinkedHashMap<>();
        final List<EvalReport.AgentResult> agents = new ArrayList<>();
        if (agent != null) {
            agents.addAll(agent.play(EvalReport.NO_WORLD_MODEL, null, progress));
        }
        try {
            for (final ModelRef ref : catalog.models()) {
                final long started = System.nanoTime();
                final RewardSpecTable table = specsOfRun.apply(ref.run());
                specs.put(ref.run(), table.toString());
                progress.line("eval: loading " + ref.label());
                final Optional<ModelRef> baseRef = catalog.base(ref);
                try (EvalModel model = catalog.open(ref)) {
                    final List<EvalReport.SetResult> setResults = new ArrayList<>();
                    for (final HeldOutSet set : sets) {
                        setResults.add(
                                evaluate(
                                        ref.label(),
                                        model.predictor(),
                                        set,
                                        new Scoring(table, scorer)));
                    }
                    if (agent != null) {
                        agents.addAll(
                                agent.play(
                                        ref.label(),
                                        AgentEvaluation.foresight(
                                                model.predictor(), settings, agent.samples()),
                                        progress));
                    }
                    EvalReport.Drift drift = null;
                    if (baseRef.isPresent() && model.small().isPresent()) {
                        final EvalModel base = bases.computeIfAbsent(baseRef.get(), catalog::open);
                        drift = drift(ref, model, baseRef.get(), base);
                    } else if (baseRef.isPresent()) {
                        progress.line(
                                "eval: no drift for "
                                        + ref.label()
                                        + ": drift is measured on the small model's checkpoints");
                    }
                    results.add(
                            new EvalReport.ModelResult(
                                    ref.label(),
                                    ref.run(),
                                    ref.version(),
                                    setResults,
                                    drift,
                                    (System.nanoTime() - started) / 1e9));
                }
            }
        } finally {
            bases.values().forEach(EvalModel::close);
        }
        return new EvalReport(
                settings.samples(),
                settings.seed(),
                settings.bootstrap(),
                specs,
                results,
                agent == null ? "" : agent.describe(),
                agents);
    }

    /** One model on one held-out set, sampled as the prediction stage samples it. */
    EvalReport.SetResult evaluate(
            final String label,
            final PredictionModel model,
            final HeldOutSet set,
            final Scoring scoring) {
        final int budget = settings.promptBudget(model.maxContext());
        final List<Transition> fitting = new ArrayList<>();
        final List<int[]> prompts = new ArrayList<>();
        for (final Transition t : set.transitions()) {
            final Prompt prompt = model.prompt(t, budget);
            if (prompt.fits()) {
                fitting.add(t);
                prompts.add(prompt.tokenIds());
            }
        }
        final long started = System.nanoTime();
        final List<TransitionScore> scores = new ArrayList<>(fitting.size());
        for (int from = 0; from < prompts.size(); from += BATCH) {
            final int to = Math.min(prompts.size(), from + BATCH);
            final long seed = settings.seed() ^ Bootstrap.fnv(set.name() + "/" + from);
            final List<List<Sample>> groups =
                    model.sample(prompts.subList(from, to), settings.sampling(), seed);
            final List<List<Sample>> greedy =
                    settings.greedy()
                            ? model.sample(
                                    prompts.subList(from, to), settings.greedySampling(), seed)
                            : null;
            for (int i = from; i < to; i++) {
                scores.add(
                        scoring.score(
                                fitting.get(i),
                                groups.get(i - from),
                                greedy == null
                                        ? Optional.empty()
                                        : Optional.of(greedy.get(i - from).get(0))));
            }
            progress.scored(
                    label + " on " + set.name(),
                    to,
                    prompts.size(),
                    String.format(
                            Locale.ROOT,
                            "eval: %s on %s: %d/%d transitions x %d samples%s (%.0f s)",
                            label,
                            set.name(),
                            to,
                            prompts.size(),
                            settings.samples(),
                            settings.greedy() ? " and a greedy one" : "",
                            (System.nanoTime() - started) / 1e9));
        }
        return aggregate(set.name(), scores, set.transitions().size() - fitting.size());
    }

    /** The figures of scored transitions overall, per task type and per next-state kind. */
    EvalReport.SetResult aggregate(
            final String set, final List<TransitionScore> scores, final int skipped) {
        final Map<String, List<TransitionScore>> byTask = new TreeMap<>();
        final Map<String, List<TransitionScore>> byKind = new TreeMap<>();
        for (final TransitionScore s : scores) {
            byTask.computeIfAbsent(s.taskType(), k -> new ArrayList<>()).add(s);
            byKind.computeIfAbsent(s.kind(), k -> new ArrayList<>()).add(s);
        }
        final Map<String, EvalReport.Figures> task = new LinkedHashMap<>();
        byTask.forEach((k, v) -> task.put(k, figures(set + "|task|" + k, v)));
        final Map<String, EvalReport.Figures> kind = new LinkedHashMap<>();
        byKind.forEach((k, v) -> kind.put(k, figures(set + "|kind|" + k, v)));
        return new EvalReport.SetResult(
                set, scores.size(), skipped, figures(set + "|all", scores), task, kind, scores);
    }

    /**
     * The figures of a group, each transition's episode a cluster; the greedy figures are NaN when
     * greedy sampling is off (every row NaN).
     */
    private EvalReport.Figures figures(final String key, final List<TransitionScore> scores) {
        final int n = scores.size();
        final double[][] columns = new double[7][n];
        final List<String> episodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final TransitionScore s = scores.get(i);
            columns[0][i] = s.pass();
            columns[1][i] = s.strict();
            columns[2][i] = s.exact();
            columns[3][i] = s.similarity();
            columns[4][i] = s.greedyPass();
            columns[5][i] = s.greedyStrict();
            columns[6][i] = s.capped();
            episodes.add(s.episodeId());
        }
        final Interval[] m = bootstrap.means(columns, episodes, key);
        return new EvalReport.Figures(n, m[0], m[1], m[2], m[3], m[4], m[5], m[6]);
    }

    private EvalReport.Drift drift(
            final ModelRef ref,
            final EvalModel model,
            final ModelRef baseRef,
            final EvalModel base) {
        progress.line("eval: drift of " + ref.label() + " from " + baseRef.label());
        final Checkpoint checkpoint = model.checkpoint().orElseThrow();
        final Checkpoint baseCheckpoint =
                base.checkpoint()
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                baseRef.label()
                                                        + " is not a small-model checkpoint like "
                                                        + ref.label()));
        final WorldModel small = model.small().orElseThrow();
        final WorldModel baseModel = base.small().orElseThrow();
        final ParameterDrift parameters =
                ParameterDrift.between(baseCheckpoint.weights(), checkpoint.weights());
        final boolean sameTokenizer =
                baseCheckpoint.tokenizerJson().equals(checkpoint.tokenizerJson());
        final Map<String, Double> kl = new LinkedHashMap<>();
        final Map<String, Double> perplexity = new LinkedHashMap<>();
        final Map<String, Integer> texts = new LinkedHashMap<>();
        for (final Map.Entry<String, List<Transition>> e : driftTexts.entrySet()) {
            final List<SequenceBatch.Pair> pairs = TextDrift.pairs(e.getValue(), small);
            texts.put(e.getKey(), pairs.size());
            perplexity.put(e.getKey(), TextDrift.perplexity(small, pairs));
            kl.put(
                    e.getKey(),
                    sameTokenizer
                            ? TextDrift.meanKl(
                                    small.model(),
                                    baseModel.model(),
                                    small.tokenizer().padId(),
                                    pairs)
                            : Double.NaN);
        }
        return new EvalReport.Drift(baseRef.label(), parameters, kl, perplexity, texts);
    }
}
