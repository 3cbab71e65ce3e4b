package dev.rwml.ops.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The readable eval report, on a report built by hand. */
class ReportPagesTest {

    private static EvalReport.SetResult set(final String name, final double pass) {
        final Interval p = new Interval(pass, pass - 0.05, pass + 0.05);
        final EvalReport.Figures f = new EvalReport.Figures(100, p, p, p, p);
        return new EvalReport.SetResult(name, 100, 0, f, Map.of(), Map.of());
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
                                null,
                                1));
        final Interval i = new Interval(0.3, 0.25, 0.35);
        final Interval s = new Interval(12, 10, 14);
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
                                0),
                        new EvalReport.AgentResult(
                                "alfworld/valid_unseen", "demo@15", 20, 500, i, i, s, 0.2));
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
                .contains("Guided agent: invalid-action rate", "no world model")
                .contains("0.220 [0.170, 0.270]");
        final String md = Files.readString(dir.resolve("report.md"));
        assertThat(md)
                .contains("| model | alfworld/valid_seen | alfworld/valid_unseen |")
                .contains("| demo@15 | 0.220 [0.170, 0.270] | 0.208 [0.158, 0.258] |")
                .contains("| no world model | 0.300 [0.250, 0.350] |");
        assertThat(Files.readAllLines(dir.resolve("figure-pass.csv")))
                .contains("alfworld/valid_seen,demo@15,0.220000,0.170000,0.270000");
        assertThat(dir.resolve("figure-agent-invalid.csv")).exists();
        assertThat(dir.resolve("figure-agent-steps.csv")).exists();
    }
}
