package dev.rwml.ops.cli.eval;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import dev.rwml.evaluation.TransitionScore;
import dev.rwml.ops.cli.web.CsvTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes an {@link EvalReport}: readable tables for the terminal, and {@code eval.csv} (one row per
 * model, set, group and metric), {@code transitions.csv} (one row per model, set and transition)
 * with {@code eval.json} (the whole report) for tools.
 */
public final class ReportWriter {

    private static final List<String> CSV_COLUMNS =
            List.of(
                    "model",
                    "run",
                    "version",
                    "set",
                    "group_type",
                    "group",
                    "transitions",
                    "metric",
                    "value",
                    "low",
                    "high");

    /** The CSV header. */
    public static final String CSV_HEADER = String.join(",", CSV_COLUMNS);

    /** The columns of {@code transitions.csv}: one scored transition of one model per row. */
    public static final List<String> TRANSITION_COLUMNS =
            List.of(
                    "model",
                    "run",
                    "version",
                    "set",
                    "episode",
                    "transition_id",
                    "task_type",
                    "kind",
                    "pass",
                    "strict",
                    "exact",
                    "similarity",
                    "greedy_pass",
                    "greedy_strict",
                    "capped");

    private ReportWriter() {}

    /** The tables: per set the overall figures, per task type and per kind; then the drift. */
    public static void printTables(final EvalReport report, final PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "%d samples per transition, seed %d; intervals: 95%% bootstrap over episodes"
                        + " (%d resamples)%n",
                report.samples(),
                report.seed(),
                report.bootstrap());
        report.rewardSpecs()
                .forEach((run, spec) -> out.printf("training reward spec of %s: %s%n", run, spec));
        printAgent(report, out);
        if (report.models().isEmpty()) {
            return;
        }
        final boolean greedy = ReportPages.greedy(report);
        ReportPages.cappedWarnings(report).forEach(w -> out.println("warning: " + w));
        for (int s = 0; s < report.models().get(0).sets().size(); s++) {
            final String set = report.models().get(0).sets().get(s).set();
            out.println();
            final List<List<String>> rows = new ArrayList<>();
            rows.add(header(greedy, "model"));
            for (final EvalReport.ModelResult m : report.models()) {
                final EvalReport.SetResult r = m.sets().get(s);
                rows.add(row(greedy, m.label(), r.all()));
            }
            final int index = s;
            if (report.models().stream().allMatch(m -> m.sets().get(index).transitions() == 0)) {
                out.println(
                        set
                                + ": no transition's prompt fits the models' context ("
                                + report.models().get(0).sets().get(s).skipped()
                                + " left out); nothing to score");
                continue;
            }
            out.println(set + (skippedNote(report, s)));
            print(rows, out, "  ");
            breakdown(report, s, "task type", true, greedy, out);
            breakdown(report, s, "next-state kind", false, greedy, out);
        }
        final List<EvalReport.ModelResult> drifted = ReportPages.drifted(report);
        out.println();
        if (!drifted.isEmpty()) {
            out.println(
                    "drift from the run's version 0 (changed parameters over all tensors and"
                            + " without the token and position embeddings; KL(model || base) per"
                            + " target token and perplexity, teacher-forced on held-out text)");
            final ReportPages.Table drift = ReportPages.driftTable(drifted);
            final List<List<String>> rows = new ArrayList<>(List.of(drift.header()));
            rows.addAll(drift.rows());
            print(rows, out, "  ");
        } else {
            out.println("drift: no model has a base (version 0 of its run) to compare with");
        }
        out.flush();
    }

    private static void printAgent(final EvalReport report, final PrintWriter out) {
        if (report.agents().isEmpty()) {
            return;
        }
        out.println();
        out.println(
                "world-model-guided agent: "
                        + report.agent()
                        + "; intervals: 95% bootstrap over episodes; avoidance judged against the"
                        + " candidates drawn inadmissible, and against random avoidance at the"
                        + " model's rate on the same episodes (reduction: its invalid-action rate"
                        + " minus the model's, paired by episode)");
        final List<List<String>> rows = new ArrayList<>();
        rows.add(
                List.of(
                        "split",
                        "agent",
                        "episodes",
                        "invalid-action rate",
                        "success",
                        "steps per success",
                        "avoidance rate",
                        "precision",
                        "recall",
                        "random avoidance's invalid rate",
                        "reduction vs random"));
        for (final EvalReport.AgentResult a : report.agents()) {
            final EvalReport.AgentResult random = a.randomBaseline();
            rows.add(
                    List.of(
                            a.set(),
                            a.agent(),
                            Integer.toString(a.episodes()),
                            format(a.invalidRate()),
                            format(a.success()),
                            format(a.stepsPerSuccess()),
                            ReportPages.number(a.avoidanceRate().estimate(), "%.3f"),
                            ReportPages.number(a.precision().estimate(), "%.3f"),
                            ReportPages.number(a.recall().estimate(), "%.3f"),
                            random == null ? "-" : format(random.invalidRate()),
                            format(a.invalidReduction())));
        }
        rows.subList(1, rows.size()).sort((a, b) -> a.get(0).compareTo(b.get(0)));
        print(rows, out, "  ");
    }

    /** An interval, or {@code -} when there is none (no baseline, or nothing to divide by). */
    static String format(final Interval interval) {
        return interval == null || Double.isNaN(interval.estimate()) ? "-" : interval.format();
    }

    private static String skippedNote(final EvalReport report, final int s) {
        final EvalReport.SetResult first = report.models().get(0).sets().get(s);
        return first.skipped() == 0
                ? ""
                : String.format(
                        Locale.ROOT,
                        " (%d transitions left out: their prompt does not fit %s's context)",
                        first.skipped(),
                        report.models().get(0).label());
    }

    private static void breakdown(
            final EvalReport report,
            final int s,
            final String title,
            final boolean byTask,
            final boolean greedy,
            final PrintWriter out) {
        final List<List<String>> rows = new ArrayList<>();
        rows.add(header(greedy, title, "model"));
        for (final EvalReport.ModelResult m : report.models()) {
            final EvalReport.SetResult r = m.sets().get(s);
            (byTask ? r.byTaskType() : r.byKind())
                    .forEach(
                            (group, f) -> {
                                final List<String> row = row(greedy, m.label(), f);
                                row.add(0, group);
                                rows.add(row);
                            });
        }
        rows.subList(1, rows.size()).sort((a, b) -> a.get(0).compareTo(b.get(0)));
        out.println("  per " + title);
        print(rows, out, "    ");
    }

    /** The columns of a figures table, strict pass first; greedy ones when greedy was sampled. */
    private static List<String> header(final boolean greedy, final String... first) {
        final List<String> h = new ArrayList<>(List.of(first));
        h.add("n");
        h.add("strict (> 0.9)");
        if (greedy) {
            h.add("greedy strict");
        }
        h.addAll(List.of("pass (training spec)", "exact", "similarity", "capped"));
        return h;
    }

    private static List<String> row(
            final boolean greedy, final String label, final EvalReport.Figures f) {
        final List<String> row =
                new ArrayList<>(
                        List.of(label, Integer.toString(f.transitions()), f.strict().format()));
        if (greedy) {
            row.add(f.greedyStrict().format());
        }
        row.addAll(
                List.of(
                        f.pass().format(),
                        f.exact().format(),
                        f.similarity().format(),
                        f.capped().format()));
        return row;
    }

    private static void print(
            final List<List<String>> rows, final PrintWriter out, final String indent) {
        final int columns = rows.get(0).size();
        final int[] width = new int[columns];
        for (final List<String> r : rows) {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], r.get(c).length());
            }
        }
        for (final List<String> r : rows) {
            final StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < columns; c++) {
                line.append(r.get(c));
                if (c < columns - 1) {
                    line.append(" ".repeat(width[c] - r.get(c).length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /**
     * Writes {@code eval.csv}, {@code transitions.csv} and {@code eval.json} into {@code dir}, and
     * the readable report ({@link ReportPages}: report.html, report.md, figure-*.csv); returns the
     * CSV's path.
     */
    public static Path writeFiles(final EvalReport report, final Path dir) throws IOException {
        Files.createDirectories(dir);
        final Path csv = dir.resolve("eval.csv");
        Files.writeString(csv, csv(report), StandardCharsets.UTF_8);
        Files.writeString(
                dir.resolve("transitions.csv"), transitionsCsv(report), StandardCharsets.UTF_8);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve("eval.json").toFile(), report);
        ReportPages.write(report, dir);
        return csv;
    }

    /** The CSV text: a header and one row per model, set, group and metric. */
    public static String csv(final EvalReport report) {
        final CsvTable csv = new CsvTable(CSV_COLUMNS);
        for (final EvalReport.ModelResult m : report.models()) {
            final Source source = new Source(m.label(), m.run(), Long.toString(m.version()));
            for (final EvalReport.SetResult r : m.sets()) {
                figures(csv, source, r.set(), "all", "all", r.all());
                r.byTaskType().forEach((g, f) -> figures(csv, source, r.set(), "task_type", g, f));
                r.byKind().forEach((g, f) -> figures(csv, source, r.set(), "next_kind", g, f));
            }
            if (m.drift() != null) {
                final EvalReport.Drift d = m.drift();
                metric(
                        csv,
                        source,
                        "",
                        "drift",
                        "parameters",
                        d.parameters().total(),
                        "changed_fraction",
                        estimate(d.parameters().fraction()));
                metric(
                        csv,
                        source,
                        "",
                        "drift",
                        "parameters_without_embeddings",
                        d.parameters().totalWithoutEmbeddings(),
                        "changed_fraction",
                        estimate(d.parameters().fractionWithoutEmbeddings()));
                d.parameters()
                        .relativeChange()
                        .forEach(
                                (tensor, change) ->
                                        metric(
                                                csv,
                                                source,
                                                "",
                                                "drift_tensor",
                                                tensor,
                                                "",
                                                "relative_change",
                                                estimate(change)));
                for (final Map.Entry<String, Double> e : d.kl().entrySet()) {
                    final int n = d.texts().getOrDefault(e.getKey(), 0);
                    metric(csv, source, "", "drift", e.getKey(), n, "kl", estimate(e.getValue()));
                    final double perplexity = d.perplexity().getOrDefault(e.getKey(), Double.NaN);
                    metric(
                            csv,
                            source,
                            "",
                            "drift",
                            e.getKey(),
                            n,
                            "perplexity",
                            estimate(perplexity));
                }
            }
        }
        for (final EvalReport.AgentResult a : report.agents()) {
            final Source source = new Source(a.agent(), "", "");
            final String set = a.set();
            final int n = a.episodes();
            metric(csv, source, set, "agent", "all", n, "invalid_rate", a.invalidRate());
            metric(csv, source, set, "agent", "all", n, "success", a.success());
            metric(csv, source, set, "agent", "all", n, "steps_per_success", a.stepsPerSuccess());
            metric(csv, source, set, "agent", "all", n, "avoidance_rate", a.avoidanceRate());
            metric(csv, source, set, "agent", "all", n, "precision", a.precision());
            metric(csv, source, set, "agent", "all", n, "recall", a.recall());
            if (a.randomBaseline() != null) {
                metric(
                        csv,
                        source,
                        set,
                        "agent",
                        "all",
                        n,
                        "random_avoidance_invalid_rate",
                        a.randomBaseline().invalidRate());
                metric(
                        csv,
                        source,
                        set,
                        "agent",
                        "all",
                        n,
                        "invalid_reduction_vs_random",
                        a.invalidReduction());
            }
        }
        return csv.text();
    }

    /**
     * The {@code transitions.csv} text: a header ({@link #TRANSITION_COLUMNS}) and one row per
     * model, set and scored transition; greedy figures are empty when greedy sampling was off.
     */
    public static String transitionsCsv(final EvalReport report) {
        final CsvTable csv = new CsvTable(TRANSITION_COLUMNS);
        for (final EvalReport.ModelResult m : report.models()) {
            for (final EvalReport.SetResult r : m.sets()) {
                for (final TransitionScore t : r.rows()) {
                    csv.row(
                            m.label(),
                            m.run(),
                            m.version(),
                            r.set(),
                            t.episodeId(),
                            t.transitionId(),
                            t.taskType(),
                            t.kind(),
                            plain(t.pass()),
                            plain(t.strict()),
                            plain(t.exact()),
                            plain(t.similarity()),
                            plain(t.greedyPass()),
                            plain(t.greedyStrict()),
                            plain(t.capped()));
                }
            }
        }
        return csv.text();
    }

    /** The first three columns: the model (or the agent) a row is about. */
    private record Source(String model, String run, String version) {}

    private static void figures(
            final CsvTable csv,
            final Source source,
            final String set,
            final String type,
            final String group,
            final EvalReport.Figures f) {
        metric(csv, source, set, type, group, f.transitions(), "pass", f.pass());
        metric(csv, source, set, type, group, f.transitions(), "strict", f.strict());
        metric(csv, source, set, type, group, f.transitions(), "exact", f.exact());
        metric(csv, source, set, type, group, f.transitions(), "similarity", f.similarity());
        metric(csv, source, set, type, group, f.transitions(), "greedy_pass", f.greedyPass());
        metric(csv, source, set, type, group, f.transitions(), "greedy_strict", f.greedyStrict());
        metric(csv, source, set, type, group, f.transitions(), "capped", f.capped());
    }

    /** One row; {@code n} is the group's size, blank where it has none (a tensor). */
    private static void metric(
            final CsvTable csv,
            final Source source,
            final String set,
            final String type,
            final String group,
            final Object n,
            final String metric,
            final Interval i) {
        csv.row(
                source.model(),
                source.run(),
                source.version(),
                set,
                type,
                group,
                n,
                metric,
                plain(i.estimate()),
                plain(i.low()),
                plain(i.high()));
    }

    /** A figure without an interval. */
    private static Interval estimate(final double value) {
        return new Interval(value, Double.NaN, Double.NaN);
    }

    private static String plain(final double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6f", v);
    }
}
