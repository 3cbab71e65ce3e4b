package dev.rwml.pipeline.bench;

import dev.rwml.evaluation.Bootstrap;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import dev.rwml.evaluation.TransitionScore;
import dev.rwml.events.ModelVersion;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.pipeline.replay.FilterPass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The bench's {@code bench.md}: per method the figures on valid_unseen and on the older grammar
 * with their optimizer steps; the paired differences between arms (per transition, pooled over
 * seeds, a bootstrap that resamples episodes) as "difference [95% interval]", each with the verdict
 * of the rule fixed in advance; forgetting at equal in-domain gain; and the guided agent.
 */
final class BenchSummary {

    /** Added to an arm's method for its version taken at RWML's number of optimizer steps. */
    static final String MATCHED = " at rwml's steps";

    private static final String BASE = "base";

    private final BenchRun.Settings settings;
    private final EvalReport report;
    private final Map<Integer, Map<Arm, String>> runs;
    private final Map<String, Long> matched;
    private final Map<String, Long> steps;
    private final Map<Integer, BenchArms.Filtered> filtered;
    private final Map<String, List<ModelVersion>> versions;
    private final Map<String, EvalReport.ModelResult> byLabel = new HashMap<>();
    private final Bootstrap bootstrap;

    /**
     * @param settings the bench's settings
     * @param report the evaluation of every model
     * @param runs each seed's run of each arm
     * @param matched the version of a run taken at RWML's number of steps, by run
     * @param steps the optimizer steps of each evaluated model, by label
     * @param filtered per seed, what the offline filter decided on the RWML arm's slice
     * @param versions every version of each arm's run, by run
     */
    BenchSummary(
            final BenchRun.Settings settings,
            final EvalReport report,
            final Map<Integer, Map<Arm, String>> runs,
            final Map<String, Long> matched,
            final Map<String, Long> steps,
            final Map<Integer, BenchArms.Filtered> filtered,
            final Map<String, List<ModelVersion>> versions) {
        this.settings = settings;
        this.versions = versions;
        this.filtered = filtered;
        this.report = report;
        this.runs = runs;
        this.matched = matched;
        this.steps = steps;
        report.models().forEach(m -> byLabel.put(m.label(), m));
        this.bootstrap = new Bootstrap(settings.eval().bootstrap(), DemoSettings.SEED);
    }

    /** One model of a comparison: an arm's last version or its version at RWML's steps. */
    record Model(Arm arm, boolean atRwmlSteps) {
        String method() {
            return arm == null ? BASE : arm.id() + (atRwmlSteps ? MATCHED : "");
        }
    }

    /** The bench's comparisons, A minus B, in the order the report lists them. */
    private List<Model[]> comparisons() {
        final List<Model[]> out = new ArrayList<>();
        final List<Arm> arms = settings.training().arms();
        final Model base = new Model(null, false);
        if (arms.contains(Arm.RWML)) {
            final Model rwml = new Model(Arm.RWML, false);
            out.add(new Model[] {rwml, base});
            for (final Arm other : arms) {
                if (other != Arm.RWML) {
                    out.add(new Model[] {rwml, new Model(other, true)});
                    out.add(new Model[] {rwml, new Model(other, false)});
                }
            }
        }
        for (final Arm arm : arms) {
            if (arm != Arm.RWML) {
                out.add(new Model[] {new Model(arm, false), base});
            }
        }
        if (arms.contains(Arm.RWML_NO_FILTER) && arms.contains(Arm.WM_SFT)) {
            // The objectives alone: both train on the whole slice.
            if (arms.contains(Arm.RWML)) {
                out.add(
                        new Model[] {
                            new Model(Arm.RWML_NO_FILTER, true), new Model(Arm.WM_SFT, true)
                        });
            }
            out.add(
                    new Model[] {
                        new Model(Arm.RWML_NO_FILTER, false), new Model(Arm.WM_SFT, false)
                    });
        }
        return out;
    }

    String markdown() {
        final StringBuilder b = new StringBuilder("# rwml bench\n\n");
        final BenchRun.Data d = settings.data();
        final BenchRun.Eval e = settings.eval();
        final BenchRun.Training t = settings.training();
        b.append(
                String.format(
                        Locale.ROOT,
                        "%d seed(s) of %d episodes x %d epoch(s); arms %s; filter model: %s, K ="
                                + " %d; held-out: %d valid_unseen transitions (at most %d per"
                                + " episode) x %d samples at temperature %.2f plus one greedy; at"
                                + " most %d new tokens a sample; strict pass = similarity above"
                                + " 0.9.%n%n",
                        d.seeds(),
                        d.sliceEpisodes(),
                        t.epochs(),
                        t.arms().stream().map(Arm::id).toList(),
                        t.filterIsBase() ? "the base" : "the base SFT'd on the validation slice",
                        t.filterTries(),
                        firstSet(BenchEvaluation.UNSEEN)
                                .map(EvalReport.SetResult::transitions)
                                .orElse(0),
                        e.perEpisode(),
                        e.samples(),
                        e.temperature(),
                        t.maxNewTokens()));
        filter(b);
        training(b);
        methods(b);
        differences(b);
        olderGrammarDifferences(b);
        forgetting(b);
        agents(b);
        return b.toString();
    }

    private void filter(final StringBuilder b) {
        if (filtered.isEmpty()) {
            return;
        }
        b.append(
                        "## The offline filter\n\nPer seed, the filter model's verdicts on the"
                                + " RWML arm's slice: easy when one of its tries passes the"
                                + " data-stage threshold; easy ones kept with probability 0.1. The"
                                + " paper set its threshold so that about 30% were easy; the last"
                                + " column says which similarity threshold would have given 30%"
                                + " here.\n\n")
                .append(
                        "| seed | judged | easy | easy fraction | kept | 30% easy |\n"
                                + "|---|---|---|---|---|---|\n");
        filtered.forEach(
                (seed, f) ->
                        b.append(
                                String.format(
                                        Locale.ROOT,
                                        "| %d | %d | %d | %.3f | %d | %s |%n",
                                        seed,
                                        f.judged(),
                                        f.easy(),
                                        f.judged() == 0 ? 0 : (double) f.easy() / f.judged(),
                                        f.kept(),
                                        FilterPass.paperThreshold(f.thresholdForPaperFraction()))));
        b.append('\n');
    }

    private Optional<EvalReport.SetResult> firstSet(final String set) {
        return report.models().isEmpty() ? Optional.empty() : set(report.models().get(0), set);
    }

    private static Optional<EvalReport.SetResult> set(
            final EvalReport.ModelResult m, final String set) {
        return m.sets().stream().filter(s -> s.set().equals(set)).findFirst();
    }

    /** The model result of {@code model} for one seed, if it was evaluated. */
    private Optional<EvalReport.ModelResult> result(final Model model, final int seed) {
        if (model.arm() == null) {
            return Optional.ofNullable(byLabel.get(BenchRun.BASE_RUN + "@0"));
        }
        final String run = runs.getOrDefault(seed, Map.of()).get(model.arm());
        if (run == null) {
            return Optional.empty();
        }
        if (model.atRwmlSteps() && matched.containsKey(run)) {
            return Optional.ofNullable(byLabel.get(run + "@" + matched.get(run)));
        }
        return report.models().stream()
                .filter(m -> m.run().equals(run))
                .max((x, y) -> Long.compare(x.version(), y.version()));
    }

    private List<Model> methodsInOrder() {
        final List<Model> out = new ArrayList<>();
        out.add(new Model(null, false));
        for (final Arm arm : settings.training().arms()) {
            out.add(new Model(arm, false));
            if (arm != Arm.RWML && settings.training().arms().contains(Arm.RWML)) {
                out.add(new Model(arm, true));
            }
        }
        return out;
    }

    /**
     * What each arm's replay did with the groups it sampled, summed over its versions' counters: a
     * replay runs in rounds, so none should be dropped as stale.
     */
    private void training(final StringBuilder b) {
        b.append(
                        "## What each arm trained on\n\nPer run, summed over its versions: groups"
                                + " sampled (one per transition and epoch that reached the"
                                + " trainer), trained, dropped as too stale, skipped for carrying"
                                + " no advantage (every sample rewarded alike) or not kept by the"
                                + " reward stage's subsampling; optimizer steps and tokens"
                                + " trained.\n\n")
                .append(
                        "| arm | seed | versions | groups sampled | trained | dropped stale |"
                                + " skipped: no advantage | skipped: not kept | optimizer steps |"
                                + " tokens |\n|---|---|---|---|---|---|---|---|---|---|\n");
        runs.forEach(
                (seed, byArm) ->
                        byArm.forEach(
                                (arm, run) -> {
                                    final List<ModelVersion> trained =
                                            versions.getOrDefault(run, List.of()).stream()
                                                    .filter(v -> v.getVersion() > 0)
                                                    .toList();
                                    long groups = 0;
                                    long stale = 0;
                                    long noAdvantage = 0;
                                    long notKept = 0;
                                    long steps = 0;
                                    long tokens = 0;
                                    for (final ModelVersion v : trained) {
                                        groups += v.getCounters().getGroups();
                                        stale += v.getCounters().getDroppedStale();
                                        noAdvantage += v.getCounters().getSkippedZeroAdvantage();
                                        notKept +=
                                                Math.round(
                                                        v.getMetrics()
                                                                .getOrDefault(
                                                                        "skippedNotKept", 0.0));
                                        steps += v.getCounters().getSteps();
                                        tokens += v.getCounters().getTokens();
                                    }
                                    b.append(
                                            String.format(
                                                    Locale.ROOT,
                                                    "| %s | %d | %d | %d | %d | %d | %d | %d | %d"
                                                            + " | %d |%n",
                                                    arm.id(),
                                                    seed,
                                                    trained.size(),
                                                    groups + stale + noAdvantage + notKept,
                                                    groups,
                                                    stale,
                                                    noAdvantage,
                                                    notKept,
                                                    steps,
                                                    tokens));
                                }));
        b.append('\n');
    }

    private void methods(final StringBuilder b) {
        b.append("## Methods on valid_unseen\n\n")
                .append(
                        "Each cell: the mean over seeds, then each seed's estimate [95% interval"
                                + " resampling episodes].\n\n")
                .append(
                        "| method | optimizer steps | strict pass | greedy strict pass | pass at"
                                + " training threshold | exact | similarity | capped at the token"
                                + " limit |\n|---|---|---|---|---|---|---|---|\n");
        for (final Model model : methodsInOrder()) {
            final List<EvalReport.ModelResult> results = perSeed(model);
            if (results.isEmpty()) {
                continue;
            }
            b.append("| ").append(model.method()).append(" | ");
            b.append(
                            String.join(
                                    "; ",
                                    results.stream()
                                            .map(
                                                    m ->
                                                            Long.toString(
                                                                    steps.getOrDefault(
                                                                            m.label(), 0L)))
                                            .toList()))
                    .append(" | ");
            final List<ToFigure> figures =
                    List.of(
                            EvalReport.Figures::strict,
                            EvalReport.Figures::greedyStrict,
                            EvalReport.Figures::pass,
                            EvalReport.Figures::exact,
                            EvalReport.Figures::similarity,
                            EvalReport.Figures::capped);
            for (final ToFigure f : figures) {
                b.append(cell(results, BenchEvaluation.UNSEEN, f)).append(" | ");
            }
            b.setLength(b.length() - 1);
            b.append('\n');
        }
    }

    private interface ToFigure extends java.util.function.Function<EvalReport.Figures, Interval> {}

    private List<EvalReport.ModelResult> perSeed(final Model model) {
        final List<EvalReport.ModelResult> out = new ArrayList<>();
        if (model.arm() == null) {
            result(model, 1).ifPresent(out::add);
            return out;
        }
        for (int seed = 1; seed <= settings.data().seeds(); seed++) {
            result(model, seed).ifPresent(out::add);
        }
        return out;
    }

    private static String cell(
            final List<EvalReport.ModelResult> results, final String set, final ToFigure f) {
        double sum = 0;
        int n = 0;
        final List<String> each = new ArrayList<>();
        for (final EvalReport.ModelResult m : results) {
            final Optional<EvalReport.SetResult> s = set(m, set);
            if (s.isPresent()) {
                final Interval i = f.apply(s.get().all());
                sum += i.estimate();
                n++;
                each.add(i.format());
            }
        }
        return n == 0
                ? "-"
                : String.format(Locale.ROOT, "**%.3f**: ", sum / n) + String.join("; ", each);
    }

    /**
     * A versus B per transition of {@code set}, pooled over seeds (the base pairs with each seed's
     * model), clustered by episode.
     */
    private Optional<Interval> difference(
            final Model a,
            final Model b,
            final String set,
            final ToDoubleFunction<TransitionScore> metric,
            final String key) {
        final List<Bootstrap.PairedRow> rows = new ArrayList<>();
        for (int seed = 1; seed <= settings.data().seeds(); seed++) {
            final Optional<EvalReport.ModelResult> ma = result(a, seed);
            final Optional<EvalReport.ModelResult> mb = result(b, seed);
            if (ma.isEmpty() || mb.isEmpty()) {
                continue;
            }
            final Optional<EvalReport.SetResult> sa = set(ma.get(), set);
            final Optional<EvalReport.SetResult> sb = set(mb.get(), set);
            if (sa.isPresent() && sb.isPresent()) {
                rows.addAll(Bootstrap.pair(sa.get(), sb.get(), metric));
            }
        }
        return rows.isEmpty()
                ? Optional.empty()
                : Optional.of(bootstrap.pairedDifference(rows, key));
    }

    private void differences(final StringBuilder b) {
        b.append(
                        "\n## Paired differences on valid_unseen\n\nA minus B per transition,"
                                + " pooled over seeds; 95% interval from a bootstrap that"
                                + " resamples episodes. Rule fixed in advance: a difference"
                                + " counts when its interval excludes 0.\n\n")
                .append(
                        "| A - B | strict pass | greedy strict pass | pass at training"
                                + " threshold | mean similarity |\n|---|---|---|---|---|\n");
        for (final Model[] c : comparisons()) {
            b.append("| ").append(c[0].method()).append(" - ").append(c[1].method()).append(" | ");
            b.append(diff(c, BenchEvaluation.UNSEEN, TransitionScore::strict, "strict"))
                    .append(" | ");
            b.append(diff(c, BenchEvaluation.UNSEEN, TransitionScore::greedyStrict, "greedy"))
                    .append(" | ");
            b.append(diff(c, BenchEvaluation.UNSEEN, TransitionScore::pass, "pass")).append(" | ");
            b.append(diff(c, BenchEvaluation.UNSEEN, TransitionScore::similarity, "similarity"))
                    .append(" |\n");
        }
    }

    /** The same pairs on the older grammar, which no arm trained on: forgetting, paired. */
    private void olderGrammarDifferences(final StringBuilder b) {
        b.append(
                        "\n## Paired differences on the older grammar\n\nThe same pairs on the"
                                + " held-out rooms in the command grammar only the base learned:"
                                + " strict pass asks what each model still gets right there,"
                                + " without the perplexity's penalty on a sharpened model.\n\n")
                .append("| A - B | strict pass | greedy strict pass |\n|---|---|---|\n");
        for (final Model[] c : comparisons()) {
            b.append("| ").append(c[0].method()).append(" - ").append(c[1].method()).append(" | ");
            b.append(diff(c, BenchEvaluation.OLDER, TransitionScore::strict, "strict"))
                    .append(" | ");
            b.append(diff(c, BenchEvaluation.OLDER, TransitionScore::greedyStrict, "greedy"))
                    .append(" |\n");
        }
    }

    private String diff(
            final Model[] c,
            final String set,
            final ToDoubleFunction<TransitionScore> metric,
            final String name) {
        return difference(
                        c[0],
                        c[1],
                        set,
                        metric,
                        set + "|" + c[0].method() + "|" + c[1].method() + "|" + name)
                .map(BenchSummary::verdict)
                .orElse("-");
    }

    /** "difference [low, high]" and whether the interval lies above, below or around 0. */
    static String verdict(final Interval i) {
        final String where = i.low() > 0 ? "above 0" : i.high() < 0 ? "below 0" : "contains 0";
        return String.format(
                Locale.ROOT, "%+.3f [%+.3f, %+.3f] %s", i.estimate(), i.low(), i.high(), where);
    }

    private void forgetting(final StringBuilder b) {
        b.append(
                        "\n## Forgetting out of domain: the older grammar\n\nThe base learned"
                                + " ALFWorld in both command grammars; the arms trained on the"
                                + " current one only. Perplexity of the observed next states"
                                + " (teacher-forced) and strict pass on valid_unseen in the"
                                + " older grammar; the perplexity increase over the base per"
                                + " +0.01 of in-domain strict pass compares arms at equal"
                                + " in-domain gain. Weight change: the mean over tensors of"
                                + " ||w' - w|| / ||w||; changed fraction: parameters with"
                                + " |w' - w| > 1e-3 max(|w|, |w'|), the embedding tables left"
                                + " out.\n\n")
                .append(
                        "| method | strict pass, older grammar | perplexity, older | perplexity,"
                                + " current | increase per +0.01 in-domain | weight change |"
                                + " changed fraction |\n"
                                + "|---|---|---|---|---|---|---|\n");
        final Optional<EvalReport.ModelResult> base = result(new Model(null, false), 1);
        final double basePpl = perplexity(base, BenchEvaluation.OLDER);
        final double baseStrict = strict(base);
        for (final Model model : methodsInOrder()) {
            final List<EvalReport.ModelResult> results = perSeed(model);
            if (results.isEmpty()) {
                continue;
            }
            double older = 0;
            double current = 0;
            double strict = 0;
            for (final EvalReport.ModelResult m : results) {
                older += perplexity(Optional.of(m), BenchEvaluation.OLDER);
                current += perplexity(Optional.of(m), BenchEvaluation.UNSEEN);
                strict += strict(Optional.of(m));
            }
            older /= results.size();
            current /= results.size();
            strict /= results.size();
            final double gain = strict - baseStrict;
            b.append("| ")
                    .append(model.method())
                    .append(" | ")
                    .append(cell(results, BenchEvaluation.OLDER, EvalReport.Figures::strict))
                    .append(String.format(Locale.ROOT, " | %.3f | %.3f | ", older, current))
                    .append(
                            model.arm() == null
                                    ? "-"
                                    : gain <= 0
                                            ? String.format(
                                                    Locale.ROOT, "no in-domain gain (%+.3f)", gain)
                                            : String.format(
                                                    Locale.ROOT,
                                                    "%+.4f (gain %+.3f)",
                                                    (older - basePpl) / (gain / 0.01),
                                                    gain))
                    .append(" | ")
                    .append(drift(results, true))
                    .append(" | ")
                    .append(drift(results, false))
                    .append(" |\n");
        }
    }

    private static double perplexity(final Optional<EvalReport.ModelResult> m, final String set) {
        return m.map(EvalReport.ModelResult::drift)
                .map(d -> d.perplexity().getOrDefault(set, Double.NaN))
                .orElse(Double.NaN);
    }

    private static double strict(final Optional<EvalReport.ModelResult> m) {
        return m.flatMap(r -> set(r, BenchEvaluation.UNSEEN))
                .map(s -> s.all().strict().estimate())
                .orElse(Double.NaN);
    }

    private static String drift(final List<EvalReport.ModelResult> results, final boolean norm) {
        final List<String> each = new ArrayList<>();
        for (final EvalReport.ModelResult m : results) {
            if (m.drift() == null) {
                each.add("-");
            } else if (norm) {
                each.add(
                        String.format(
                                Locale.ROOT,
                                "%.4f",
                                meanRelativeChange(m.drift().parameters().relativeChange())));
            } else {
                each.add(
                        String.format(
                                Locale.ROOT,
                                "%.4f",
                                m.drift().parameters().fractionWithoutEmbeddings()));
            }
        }
        return String.join("; ", each);
    }

    /** The mean of the tensors' relative changes, those with an all-zero base left out. */
    static double meanRelativeChange(final Map<String, Double> byTensor) {
        return byTensor.values().stream()
                .filter(v -> !v.isNaN())
                .mapToDouble(Double::doubleValue)
                .average()
                .orElse(Double.NaN);
    }

    private void agents(final StringBuilder b) {
        if (report.agents().isEmpty()) {
            return;
        }
        b.append("\n## Guided agent (")
                .append(report.agent())
                .append(
                        ")\n\nThe agent takes the first candidate its world model does not"
                                + " predict to do nothing; the always-admissible candidate sits at"
                                + " a random position. Each model is beside random avoidance at"
                                + " its own avoidance rate on the same episodes; the reduction is"
                                + " the baseline's invalid rate minus the model's, paired by"
                                + " episode. Rule fixed in advance: the model discriminates when"
                                + " the reduction's interval lies above 0.\n\n")
                .append(
                        "| agent | method | invalid-action rate | success | avoidance rate |"
                                + " precision | recall | random avoidance: invalid rate |"
                                + " reduction vs random |\n|---|---|---|---|---|---|---|---|---|\n");
        for (final EvalReport.AgentResult a : report.agents()) {
            if (a.agent().startsWith("random avoidance")) {
                continue;
            }
            b.append("| ")
                    .append(a.agent())
                    .append(" | ")
                    .append(agentMethod(a.agent()))
                    .append(" | ")
                    .append(a.invalidRate().format())
                    .append(" | ")
                    .append(a.success().format())
                    .append(" | ")
                    .append(format(a.avoidanceRate()))
                    .append(" | ")
                    .append(format(a.precision()))
                    .append(" | ")
                    .append(format(a.recall()))
                    .append(" | ")
                    .append(
                            a.randomBaseline() == null
                                    ? "-"
                                    : a.randomBaseline().invalidRate().format())
                    .append(" | ")
                    .append(a.invalidReduction() == null ? "-" : verdict(a.invalidReduction()))
                    .append(" |\n");
        }
    }

    private static String format(final Interval i) {
        return i == null || Double.isNaN(i.estimate()) ? "-" : i.format();
    }

    /** The method of an agent's label: the base's, an arm's, or the agent without a model. */
    private String agentMethod(final String label) {
        if (label.equals(BenchRun.BASE_RUN + "@0")) {
            return BASE;
        }
        for (final Map<Arm, String> byArm : runs.values()) {
            for (final Map.Entry<Arm, String> e : byArm.entrySet()) {
                if (label.startsWith(e.getValue() + "@")) {
                    return e.getKey().id();
                }
            }
        }
        return "-";
    }
}
