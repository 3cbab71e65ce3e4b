package dev.rwml.ops.cli.eval;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import dev.rwml.ops.cli.web.HtmlTemplate;
import dev.rwml.ops.cli.web.LineChart;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The readable report of an {@link EvalReport}: {@code report.html} with its charts inline as SVG
 * (models along x, one series per held-out set, 95% intervals as error bars), each chart's figures
 * as {@code figure-<name>.csv}, and {@code report.md} with the paper-shaped tables (model x split,
 * with intervals), the strict pass rate first; both warn when many samples hit the token cap.
 */
public final class ReportPages {

    /** The share of samples cut at the token cap above which the report warns. */
    static final double CAPPED_WARNING = 0.05;

    /** A chart with the file name stem of its figures. */
    record Figure(String name, String caption, LineChart chart) {}

    private static final HtmlTemplate PAGE =
            HtmlTemplate.of(ReportPages.class, "report.html.jinja");

    private ReportPages() {}

    /** Writes report.html, report.md and the figures' CSV files into {@code dir}. */
    public static List<Path> write(final EvalReport report, final Path dir) throws IOException {
        Files.createDirectories(dir);
        final List<Figure> figures = figures(report);
        final List<Path> written = new ArrayList<>();
        for (final Figure f : figures) {
            final Path csv = dir.resolve("figure-" + f.name() + ".csv");
            Files.writeString(csv, f.chart().csv(), StandardCharsets.UTF_8);
            written.add(csv);
        }
        final Path html = dir.resolve("report.html");
        Files.writeString(html, html(report, figures), StandardCharsets.UTF_8);
        final Path md = dir.resolve("report.md");
        Files.writeString(md, markdown(report), StandardCharsets.UTF_8);
        written.add(0, md);
        written.add(0, html);
        return written;
    }

    /** The report's charts, in page order. */
    static List<Figure> figures(final EvalReport report) {
        final List<Figure> out = new ArrayList<>();
        final List<String> models = report.models().stream().map(m -> m.label()).toList();
        if (!models.isEmpty() && !report.models().get(0).sets().isEmpty()) {
            out.add(
                    setFigure(
                            report,
                            "strict",
                            "Strict pass rate (similarity > 0.9)",
                            "pass rate (fraction of samples)",
                            EvalReport.Figures::strict));
            if (greedy(report)) {
                out.add(
                        setFigure(
                                report,
                                "greedy-strict",
                                "Greedy strict pass rate (one sample at temperature 0)",
                                "pass rate (fraction of transitions)",
                                EvalReport.Figures::greedyStrict));
            }
            out.add(
                    setFigure(
                            report,
                            "pass",
                            "World-model pass rate at the training reward spec",
                            "pass rate (fraction of samples)",
                            EvalReport.Figures::pass));
            out.add(
                    setFigure(
                            report,
                            "similarity",
                            "Mean similarity to the observed next state",
                            "similarity (cosine or ROUGE, 0-1)",
                            EvalReport.Figures::similarity));
        }
        final List<EvalReport.ModelResult> drifted =
                report.models().stream().filter(m -> m.drift() != null).toList();
        if (!drifted.isEmpty()) {
            final LineChart chart =
                    new LineChart(
                                    "Parameters changed from the base",
                                    "model",
                                    "changed parameters (fraction of all)")
                            .categories(drifted.stream().map(m -> m.label()).toList());
            final double[] xs = new double[drifted.size()];
            final double[] all = new double[drifted.size()];
            final double[] outside = new double[drifted.size()];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = i;
                all[i] = drifted.get(i).drift().parameters().fraction();
                outside[i] = drifted.get(i).drift().parameters().fractionWithoutEmbeddings();
            }
            chart.add(new LineChart.Series("|w' - w| > 1e-3 max(|w|, |w'|)", xs, all, false));
            chart.add(new LineChart.Series("the same, without embeddings", xs, outside, false));
            out.add(new Figure("drift", "Fraction of parameters changed from the base", chart));
        }
        if (!report.agents().isEmpty()) {
            out.add(
                    agentFigure(
                            withRandomBaselines(report.agents()),
                            "agent-invalid",
                            "Guided agent: invalid-action rate",
                            "actions that did nothing (fraction of actions)",
                            EvalReport.AgentResult::invalidRate));
            out.add(
                    agentFigure(
                            report.agents(),
                            "agent-success",
                            "Guided agent: task success",
                            "episodes completed (fraction)",
                            EvalReport.AgentResult::success));
            out.add(
                    agentFigure(
                            report.agents(),
                            "agent-steps",
                            "Guided agent: steps per success",
                            "actions per completed episode (steps)",
                            EvalReport.AgentResult::stepsPerSuccess));
        }
        if (report.agents().stream().anyMatch(a -> a.invalidReduction() != null)) {
            out.add(
                    agentFigure(
                            report.agents().stream()
                                    .filter(a -> a.invalidReduction() != null)
                                    .toList(),
                            "agent-reduction",
                            "Guided agent: invalid-action rate of random avoidance at the"
                                    + " model's rate minus the model's (paired by episode)",
                            "reduction in invalid-action rate (above 0: better than chance)",
                            EvalReport.AgentResult::invalidReduction));
        }
        return out;
    }

    private static Figure setFigure(
            final EvalReport report,
            final String name,
            final String title,
            final String yLabel,
            final Function<EvalReport.Figures, Interval> metric) {
        final List<EvalReport.ModelResult> models = report.models();
        final LineChart chart =
                new LineChart(title, "model", yLabel)
                        .categories(models.stream().map(m -> m.label()).toList());
        final int sets = models.get(0).sets().size();
        for (int s = 0; s < sets; s++) {
            final double[][] v = new double[4][models.size()];
            for (int i = 0; i < models.size(); i++) {
                final EvalReport.SetResult r = models.get(i).sets().get(s);
                final Interval in = metric.apply(r.all());
                v[0][i] = i;
                v[1][i] = in.estimate();
                v[2][i] = in.low();
                v[3][i] = in.high();
            }
            chart.add(
                    LineChart.Series.withInterval(
                            models.get(0).sets().get(s).set(), v[0], v[1], v[2], v[3]));
        }
        return new Figure(name, title, chart);
    }

    /** Each agent's result followed by its random-avoidance baseline, if it has one. */
    private static List<EvalReport.AgentResult> withRandomBaselines(
            final List<EvalReport.AgentResult> results) {
        final List<EvalReport.AgentResult> out = new ArrayList<>();
        for (final EvalReport.AgentResult a : results) {
            out.add(a);
            if (a.randomBaseline() != null) {
                out.add(a.randomBaseline());
            }
        }
        return out;
    }

    private static Figure agentFigure(
            final List<EvalReport.AgentResult> results,
            final String name,
            final String title,
            final String yLabel,
            final Function<EvalReport.AgentResult, Interval> metric) {
        final Set<String> agents = new LinkedHashSet<>();
        final Map<String, Map<String, EvalReport.AgentResult>> bySplit = new LinkedHashMap<>();
        for (final EvalReport.AgentResult a : results) {
            agents.add(a.agent());
            bySplit.computeIfAbsent(a.set(), k -> new LinkedHashMap<>()).put(a.agent(), a);
        }
        final List<String> names = List.copyOf(agents);
        final LineChart chart = new LineChart(title, "world model guiding the agent", yLabel);
        chart.categories(names);
        bySplit.forEach(
                (split, agentsOfSplit) -> {
                    final double[][] v = new double[4][names.size()];
                    for (int i = 0; i < names.size(); i++) {
                        final EvalReport.AgentResult r = agentsOfSplit.get(names.get(i));
                        final Interval in =
                                r == null
                                        ? new Interval(Double.NaN, Double.NaN, Double.NaN)
                                        : metric.apply(r);
                        v[0][i] = i;
                        v[1][i] = in.estimate();
                        v[2][i] = in.low();
                        v[3][i] = in.high();
                    }
                    chart.add(LineChart.Series.withInterval(split, v[0], v[1], v[2], v[3]));
                });
        return new Figure(name, title, chart);
    }

    static String html(final EvalReport report, final List<Figure> figures) {
        return PAGE.render(
                Map.of(
                        "settings", settingsLine(report),
                        "warnings", cappedWarnings(report),
                        "rewardSpecs", report.rewardSpecs(),
                        "tables", tables(report),
                        "figures", figures));
    }

    /** Whether any model was also sampled greedily. */
    static boolean greedy(final EvalReport report) {
        return report.models().stream()
                .flatMap(m -> m.sets().stream())
                .anyMatch(r -> !Double.isNaN(r.all().greedyStrict().estimate()));
    }

    /**
     * A line per model and set whose samples stopped at the token cap more often than {@link
     * #CAPPED_WARNING}: cut samples fail, so the figures then measure the cap as much as the model.
     */
    static List<String> cappedWarnings(final EvalReport report) {
        final List<String> out = new ArrayList<>();
        for (final EvalReport.ModelResult m : report.models()) {
            for (final EvalReport.SetResult r : m.sets()) {
                final double capped = r.all().capped().estimate();
                if (r.transitions() > 0 && capped > CAPPED_WARNING) {
                    out.add(
                            String.format(
                                    Locale.ROOT,
                                    "%s on %s: %.1f%% of samples stopped at the token cap (over"
                                            + " %.0f%%) and count as failures; raise"
                                            + " --max-new-tokens",
                                    m.label(),
                                    r.set(),
                                    100 * capped,
                                    100 * CAPPED_WARNING));
                }
            }
        }
        return out;
    }

    /** A titled table. */
    record Table(String title, List<String> header, List<List<String>> rows) {}

    /**
     * The paper-shaped tables: model x split per metric, the strict pass rate first, then the
     * agent's and the drift.
     */
    static List<Table> tables(final EvalReport report) {
        final List<Table> out = new ArrayList<>();
        if (!report.models().isEmpty() && !report.models().get(0).sets().isEmpty()) {
            out.add(setTable(report, "Strict pass rate (similarity > 0.9)", f -> f.strict()));
            if (greedy(report)) {
                out.add(
                        setTable(
                                report,
                                "Greedy strict pass rate (one sample at temperature 0)",
                                f -> f.greedyStrict()));
            }
            out.add(setTable(report, "Pass rate at the training reward spec", f -> f.pass()));
            out.add(setTable(report, "Exact match", f -> f.exact()));
            out.add(setTable(report, "Mean similarity", f -> f.similarity()));
            out.add(
                    setTable(
                            report,
                            "Share of samples cut at the token cap (--max-new-tokens)",
                            f -> f.capped()));
        }
        out.addAll(agentTables(report));
        final List<EvalReport.ModelResult> drifted = drifted(report);
        if (!drifted.isEmpty()) {
            out.add(driftTable(drifted));
            out.add(tensorTable(drifted));
        }
        return out;
    }

    /** The models that have a base to compare with. */
    static List<EvalReport.ModelResult> drifted(final EvalReport report) {
        return report.models().stream().filter(m -> m.drift() != null).toList();
    }

    /**
     * Drift from the base per model: the changed parameters (all tensors and without the
     * embeddings), then KL(model || base) and perplexity per held-out text.
     */
    static Table driftTable(final List<EvalReport.ModelResult> drifted) {
        final Set<String> texts = new LinkedHashSet<>();
        drifted.forEach(m -> texts.addAll(m.drift().kl().keySet()));
        final List<String> header =
                new ArrayList<>(
                        List.of(
                                "model",
                                "base",
                                "changed parameters",
                                "changed without embeddings"));
        texts.forEach(t -> header.add("KL on " + t));
        texts.forEach(t -> header.add("perplexity on " + t));
        final List<List<String>> rows = new ArrayList<>();
        for (final EvalReport.ModelResult m : drifted) {
            final EvalReport.Drift d = m.drift();
            final List<String> row = new ArrayList<>();
            row.add(m.label());
            row.add(d.baseLabel());
            row.add(
                    String.format(
                            Locale.ROOT,
                            "%.4f (%d of %d)",
                            d.parameters().fraction(),
                            d.parameters().changed(),
                            d.parameters().total()));
            row.add(
                    String.format(
                            Locale.ROOT,
                            "%.4f (%d of %d)",
                            d.parameters().fractionWithoutEmbeddings(),
                            d.parameters().changedWithoutEmbeddings(),
                            d.parameters().totalWithoutEmbeddings()));
            texts.forEach(t -> row.add(number(d.kl().getOrDefault(t, Double.NaN), "%.4f")));
            texts.forEach(t -> row.add(number(d.perplexity().getOrDefault(t, Double.NaN), "%.2f")));
            rows.add(row);
        }
        return new Table("Drift from the base", header, rows);
    }

    /** Each tensor's relative change ||w' - w|| / ||w||: tensor x model. */
    private static Table tensorTable(final List<EvalReport.ModelResult> drifted) {
        final Set<String> tensors = new LinkedHashSet<>();
        drifted.forEach(m -> tensors.addAll(m.drift().parameters().relativeChange().keySet()));
        final List<String> header = new ArrayList<>(List.of("tensor"));
        drifted.forEach(m -> header.add(m.label()));
        final List<List<String>> rows = new ArrayList<>();
        for (final String tensor : tensors) {
            final List<String> row = new ArrayList<>(List.of(tensor));
            drifted.forEach(
                    m ->
                            row.add(
                                    number(
                                            m.drift()
                                                    .parameters()
                                                    .relativeChange()
                                                    .getOrDefault(tensor, Double.NaN),
                                            "%.4f")));
            rows.add(row);
        }
        return new Table(
                "Relative change per tensor, ||w' - w|| / ||w|| (- where the base's tensor is zero)",
                header,
                rows);
    }

    /**
     * The guided agent, one table per split: each agent's figures, and a model's random-avoidance
     * baseline beside it.
     */
    private static List<Table> agentTables(final EvalReport report) {
        final Map<String, List<List<String>>> bySplit = new LinkedHashMap<>();
        for (final EvalReport.AgentResult a : report.agents()) {
            final EvalReport.AgentResult random = a.randomBaseline();
            bySplit.computeIfAbsent(a.set(), k -> new ArrayList<>())
                    .add(
                            List.of(
                                    a.agent(),
                                    Integer.toString(a.episodes()),
                                    ReportWriter.format(a.invalidRate()),
                                    ReportWriter.format(a.success()),
                                    ReportWriter.format(a.stepsPerSuccess()),
                                    ReportWriter.format(a.avoidanceRate()),
                                    ReportWriter.format(a.precision()),
                                    ReportWriter.format(a.recall()),
                                    random == null
                                            ? "-"
                                            : ReportWriter.format(random.invalidRate()),
                                    ReportWriter.format(a.invalidReduction())));
        }
        final List<String> header =
                List.of(
                        "agent",
                        "episodes",
                        "invalid-action rate",
                        "success",
                        "steps per success",
                        "avoidance rate",
                        "avoidance precision",
                        "avoidance recall",
                        "random avoidance: invalid-action rate",
                        "reduction vs random (paired by episode)");
        final List<Table> out = new ArrayList<>();
        bySplit.forEach(
                (split, rows) ->
                        out.add(
                                new Table(
                                        "Guided agent on " + split + " (" + report.agent() + ")",
                                        header,
                                        rows)));
        return out;
    }

    private static Table setTable(
            final EvalReport report,
            final String title,
            final Function<EvalReport.Figures, Interval> metric) {
        final List<String> header = new ArrayList<>(List.of("model"));
        report.models().get(0).sets().forEach(s -> header.add(s.set()));
        final List<List<String>> rows = new ArrayList<>();
        for (final EvalReport.ModelResult m : report.models()) {
            final List<String> row = new ArrayList<>(List.of(m.label()));
            for (final EvalReport.SetResult r : m.sets()) {
                row.add(r.transitions() == 0 ? "-" : metric.apply(r.all()).format());
            }
            rows.add(row);
        }
        return new Table(title, header, rows);
    }

    static String markdown(final EvalReport report) {
        final StringBuilder b = new StringBuilder("# rwml eval\n\n");
        b.append(settingsLine(report)).append("\n");
        for (final String warning : cappedWarnings(report)) {
            b.append("\n> **Warning:** ").append(warning).append("\n");
        }
        for (final Table t : tables(report)) {
            b.append("\n## ").append(t.title()).append("\n\n| ");
            b.append(String.join(" | ", t.header())).append(" |\n|");
            t.header().forEach(c -> b.append("---|"));
            b.append('\n');
            for (final List<String> row : t.rows()) {
                b.append("| ").append(String.join(" | ", row)).append(" |\n");
            }
        }
        return b.toString();
    }

    private static String settingsLine(final EvalReport report) {
        return String.format(
                Locale.ROOT,
                "%d samples per transition, seed %d; intervals: 95%% percentile bootstrap over"
                        + " episodes (each drawn with all its transitions), %d resamples.",
                report.samples(),
                report.seed(),
                report.bootstrap());
    }

    /** {@code value} in {@code format}, or {@code -} where it is not a number. */
    static String number(final double value, final String format) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
    }
}
