package dev.rwml.ops.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import dev.rwml.evaluation.ParameterDrift;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The readable eval report, on a report built by hand. */
class ReportPagesTest {

    private static Interval around(final double value) {
        return new Interval(value, value - 0.05, value + 0.05);
    }

    /** A set whose figures are all {@code pass}, without greedy samples, 1% of samples cut. */
    private static EvalReport.SetResult set(final String name, final double pass) {
        final Interval p = around(pass);
        final Interval none = new Interval(Double.NaN, Double.NaN, Double.NaN);
        final EvalReport.Figures f =
                new EvalReport.Figures(100, p, p, p, p, none, none, around(0.01));
        return new EvalReport.SetResult(name, 100, 0, f, Map.of(), Map.of(), List.of());
    }

    /** One model on one set: strict 0.1, greedy strict 0.3, pass 0.5, the given share cut. */
    private static EvalReport greedy(final double capped) {
        final EvalReport.Figures f =
                new EvalReport.Figures(
                        100,
                        around(0.5),
                        around(0.1),
                        around(0.05),
                        around(0.7),
                        around(0.6),
                        around(0.3),
                        around(capped));
        final EvalReport.SetResult set =
                new EvalReport.SetResult(
                        "alfworld/valid_seen", 100, 0, f, Map.of(), Map.of(), List.of());
        return new EvalReport(
                4,
                7,
                1000,
                Map.of(),
                List.of(new EvalReport.ModelResult("demo@3", "demo", 3, List.of(set), null, 1)));
    }

    private static Map<String, Double> tensors(
            final String first, final double a, final String second, final double b) {
        final Map<String, Double> out = new LinkedHashMap<>();
        out.put(first, a);
        out.put(second, b);
        return out;
    }

    private static EvalReport report() {
        final List<EvalReport.ModelResult> models =
                List.of(
                        new EvalReport.ModelResult(
                                "demo@0",
                                "demo",
                                0,
                                List.of(
                                        set("alfworld/valid_seen", 0.168),
                                        set("alfworld/valid_unseen", 0.16)),
                                null,
                                1),
                        new EvalReport.ModelResult(
                                "demo@15",
                                "demo",
                                15,
                                List.of(
                                        set("alfworld/valid_seen", 0.22),
                                        set("alfworld/valid_unseen", 0.208)),
                                new EvalReport.Drift(
                                        "demo@0",
                                        new ParameterDrift(
                                                925,
                                                1000,
                                                400,
                                                600,
                                                tensors(
                                                        "tok_emb.weight",
                                                        0.5,
                                                        "blocks.0.ln1.bias",
                                                        Double.NaN)),
                                        Map.of("alfworld-older", 0.2),
                                        Map.of("alfworld-older", 3.5),
                                        Map.of("alfworld-older", 10)),
                                1));
        final Interval i = new Interval(0.3, 0.25, 0.35);
        final Interval s = new Interval(12, 10, 14);
        final Interval none = new Interval(Double.NaN, Double.NaN, Double.NaN);
        final Interval zero = new Interval(0, 0, 0);
        final EvalReport.AgentResult random =
                new EvalReport.AgentResult(
                        "alfworld/valid_unseen",
                        "random avoidance at demo@15",
                        20,
                        590,
                        new Interval(0.29, 0.24, 0.34),
                        i,
                        s,
                        new Interval(0.2, 0.18, 0.22),
                        new Interval(0.25, 0.2, 0.3),
                        new Interval(0.2, 0.15, 0.25),
                        null,
                        null,
                        List.of());
        final List<EvalReport.AgentResult> agents =
                List.of(
                        new EvalReport.AgentResult(
                                "alfworld/valid_unseen",
                                EvalReport.NO_WORLD_MODEL,
                                20,
                                600,
                                i,
                                i,
                                s,
                                zero,
                                none,
                                zero,
                                null,
                                null,
                                List.of()),
                        new EvalReport.AgentResult(
                                "alfworld/valid_unseen",
                                "demo@15",
                                20,
                                500,
                                new Interval(0.1, 0.07, 0.13),
                                i,
                                s,
                                new Interval(0.21, 0.19, 0.23),
                                new Interval(0.9, 0.85, 0.95),
                                new Interval(0.8, 0.75, 0.85),
                                random,
                                new Interval(0.19, 0.14, 0.24),
                                List.of()));
        return new EvalReport(
                4, 7, 1000, Map.of("demo", "TEXT=cosine:0.8"), models, "settings", agents);
    }

    @Test
    void shouldWriteChartsTablesAndTheFiguresOfEachChart(@TempDir final Path dir) throws Exception {
        ReportPages.write(report(), dir);
        final String html = Files.readString(dir.resolve("report.html"));
        assertThat(html)
                .contains(
                        "<svg",
                        "demo@15",
                        "alfworld/valid_unseen",
                        "pass rate (fraction of samples)")
                .contains("Guided agent on alfworld/valid_unseen (settings)", "no world model")
                .contains("random avoidance: invalid-action rate")
                .contains("0.220 [0.170, 0.270]");
        final String md = Files.readString(dir.resolve("report.md"));
        assertThat(md)
                .contains("| model | alfworld/valid_seen | alfworld/valid_unseen |")
                .contains("| demo@15 | 0.220 [0.170, 0.270] | 0.208 [0.158, 0.258] |")
                .contains(
                        "| no world model | 20 | 0.300 [0.250, 0.350] | 0.300 [0.250, 0.350] |"
                                + " 12.000 [10.000, 14.000] | 0.000 [0.000, 0.000] | - |"
                                + " 0.000 [0.000, 0.000] | - | - |")
                .contains(
                        "| demo@15 | 20 | 0.100 [0.070, 0.130] | 0.300 [0.250, 0.350] |"
                                + " 12.000 [10.000, 14.000] | 0.210 [0.190, 0.230] |"
                                + " 0.900 [0.850, 0.950] | 0.800 [0.750, 0.850] |"
                                + " 0.290 [0.240, 0.340] | 0.190 [0.140, 0.240] |");
        assertThat(md)
                .contains(
                        "| model | base | changed parameters | changed without embeddings |"
                                + " KL on alfworld-older | perplexity on alfworld-older |")
                .contains(
                        "| demo@15 | demo@0 | 0.9250 (925 of 1000) | 0.6667 (400 of 600) | 0.2000 |"
                                + " 3.50 |")
                .contains("| tensor | demo@15 |")
                .contains("| tok_emb.weight | 0.5000 |")
                .contains("| blocks.0.ln1.bias | - |");
        assertThat(Files.readString(dir.resolve("figure-drift.csv")))
                .contains("the same, without embeddings");
        assertThat(Files.readAllLines(dir.resolve("figure-pass.csv")))
                .contains("alfworld/valid_seen,demo@15,0.220000,0.170000,0.270000");
        assertThat(dir.resolve("figure-agent-invalid.csv")).exists();
        assertThat(dir.resolve("figure-agent-steps.csv")).exists();
        assertThat(Files.readAllLines(dir.resolve("figure-agent-invalid.csv")))
                .contains(
                        "alfworld/valid_unseen,random avoidance at demo@15,0.290000,0.240000,"
                                + "0.340000");
        assertThat(Files.readAllLines(dir.resolve("figure-agent-reduction.csv")))
                .contains("alfworld/valid_unseen,demo@15,0.190000,0.140000,0.240000")
                .noneMatch(line -> line.contains(EvalReport.NO_WORLD_MODEL));
    }

    @Test
    void shouldPutTheStrictPassRateFirstThenTheGreedyOneOnlyWhenSampled(@TempDir final Path dir)
            throws Exception {
        ReportPages.write(greedy(0.01), dir);
        final String md = Files.readString(dir.resolve("report.md"));
        final int strict = md.indexOf("## Strict pass rate");
        final int greedy = md.indexOf("## Greedy strict pass rate");
        final int pass = md.indexOf("## Pass rate at the training reward spec");
        final int capped = md.indexOf("## Share of samples cut at the token cap");
        assertThat(strict).as("the first table").isPositive().isEqualTo(md.indexOf("## "));
        assertThat(greedy).isGreaterThan(strict).isLessThan(pass);
        assertThat(pass).isLessThan(md.indexOf("## Exact match"));
        assertThat(capped).isGreaterThan(md.indexOf("## Mean similarity"));
        assertThat(md.substring(strict, greedy)).contains("| demo@3 | 0.100 [0.050, 0.150] |");
        assertThat(md.substring(greedy, pass)).contains("| demo@3 | 0.300 [0.250, 0.350] |");
        assertThat(md).doesNotContain("Warning");
        assertThat(dir.resolve("figure-greedy-strict.csv")).exists();
        assertThat(Files.readString(dir.resolve("report.html")))
                .contains("Greedy strict pass rate")
                .doesNotContain("Warning");

        final String withoutGreedy = ReportPages.markdown(report());
        assertThat(withoutGreedy).doesNotContain("Greedy");
        assertThat(withoutGreedy.indexOf("## Strict pass rate"))
                .isLessThan(withoutGreedy.indexOf("## Pass rate"));
    }

    @Test
    void shouldWarnWhenMoreThanFivePercentOfSamplesHitTheTokenCap(@TempDir final Path dir)
            throws Exception {
        ReportPages.write(greedy(0.08), dir);
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("> **Warning:** demo@3 on alfworld/valid_seen: 8.0% of samples stopped");
        assertThat(Files.readString(dir.resolve("report.html")))
                .contains("<strong>Warning:</strong> demo@3 on alfworld/valid_seen: 8.0%");
        assertThat(ReportPages.cappedWarnings(greedy(0.05))).as("5% is not over 5%").isEmpty();
    }
}
