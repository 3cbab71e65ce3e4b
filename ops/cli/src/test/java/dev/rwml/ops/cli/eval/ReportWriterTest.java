package dev.rwml.ops.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import dev.rwml.evaluation.ParameterDrift;
import dev.rwml.evaluation.TransitionScore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** rwml eval's CSV files, on a report built by hand. */
class ReportWriterTest {

    private static final List<TransitionScore> ROWS =
            List.of(
                    new TransitionScore(
                            "alfworld/valid_seen-7-0/3",
                            "valid_seen-7-0",
                            "pick_and_place",
                            "TEXT",
                            0.5,
                            0.25,
                            0,
                            0.75,
                            1,
                            0,
                            0.25),
                    new TransitionScore(
                            "alfworld/valid_seen-7-1/0",
                            "valid_seen-7-1",
                            "look_at_obj",
                            "TEXT",
                            1,
                            1,
                            1,
                            1,
                            Double.NaN,
                            Double.NaN,
                            0));

    private static EvalReport report() {
        final Interval p = new Interval(0.22, 0.17, 0.27);
        final Interval g = new Interval(0.5, 0.4, 0.6);
        final Interval none = new Interval(Double.NaN, Double.NaN, Double.NaN);
        final EvalReport.Figures f = new EvalReport.Figures(2, p, p, p, p, g, none, p);
        final EvalReport.SetResult set =
                new EvalReport.SetResult("alfworld/valid_seen", 2, 0, f, Map.of(), Map.of(), ROWS);
        final EvalReport.Drift drift =
                new EvalReport.Drift(
                        "tuned, v0",
                        new ParameterDrift(3, 10, 1, 4, Map.of("blocks.0.mlp.weight", 0.02)),
                        Map.of("alfworld", 0.05),
                        Map.of("alfworld", 1.5),
                        Map.of("alfworld", 40));
        final EvalReport.ModelResult model =
                new EvalReport.ModelResult("tuned, \"v3\"", "tuned", 3, List.of(set), drift, 1);
        final Interval i = new Interval(0.3, 0.25, 0.35);
        final EvalReport.AgentResult random =
                new EvalReport.AgentResult(
                        "alfworld/valid_unseen",
                        "random avoidance at tuned",
                        20,
                        600,
                        new Interval(0.4, 0.35, 0.45),
                        i,
                        i,
                        i,
                        i,
                        i,
                        null,
                        null,
                        List.of());
        final EvalReport.AgentResult agent =
                new EvalReport.AgentResult(
                        "alfworld/valid_unseen",
                        "tuned",
                        20,
                        600,
                        i,
                        i,
                        i,
                        new Interval(0.2, 0.15, 0.25),
                        new Interval(0.9, 0.8, 1),
                        none,
                        random,
                        new Interval(0.1, 0.05, 0.15),
                        List.of());
        return new EvalReport(4, 7, 1000, Map.of(), List.of(model), "settings", List.of(agent));
    }

    @Test
    void shouldWriteOneQuotedRowPerModelSetGroupAndMetric() {
        assertThat(ReportWriter.csv(report()).lines())
                .containsExactly(
                        ReportWriter.CSV_HEADER,
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,pass,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,strict,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,exact,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,similarity,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,greedy_pass,"
                                + "0.500000,0.400000,0.600000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,greedy_strict,"
                                + ",,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,2,capped,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,parameters,10,changed_fraction,"
                                + "0.300000,,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,parameters_without_embeddings,4,"
                                + "changed_fraction,0.250000,,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift_tensor,blocks.0.mlp.weight,,"
                                + "relative_change,0.020000,,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,alfworld,40,kl,0.050000,,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,alfworld,40,perplexity,1.500000,,",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,invalid_rate,"
                                + "0.300000,0.250000,0.350000",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,success,"
                                + "0.300000,0.250000,0.350000",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,steps_per_success,"
                                + "0.300000,0.250000,0.350000",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,avoidance_rate,"
                                + "0.200000,0.150000,0.250000",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,precision,"
                                + "0.900000,0.800000,1.000000",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,recall,,,",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,random_avoidance_invalid_rate,"
                                + "0.400000,0.350000,0.450000",
                        "tuned,,,alfworld/valid_unseen,agent,all,20,invalid_reduction_vs_random,"
                                + "0.100000,0.050000,0.150000");
    }

    @Test
    void shouldWriteOneRowPerScoredTransitionWithItsEpisode(@TempDir final Path dir)
            throws Exception {
        ReportWriter.writeFiles(report(), dir);
        final List<String> lines = Files.readAllLines(dir.resolve("transitions.csv"));
        assertThat(lines.get(0))
                .isEqualTo(
                        "model,run,version,set,episode,transition_id,task_type,kind,pass,strict,"
                                + "exact,similarity,greedy_pass,greedy_strict,capped");
        assertThat(lines.get(0).split(",")).hasSize(ReportWriter.TRANSITION_COLUMNS.size());
        assertThat(lines)
                .as("one row per model, set and scored transition")
                .hasSize(1 + ROWS.size())
                .contains(
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,valid_seen-7-0,"
                                + "alfworld/valid_seen-7-0/3,pick_and_place,TEXT,0.500000,"
                                + "0.250000,0.000000,0.750000,1.000000,0.000000,0.250000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,valid_seen-7-1,"
                                + "alfworld/valid_seen-7-1/0,look_at_obj,TEXT,1.000000,1.000000,"
                                + "1.000000,1.000000,,,0.000000");
    }

    @Test
    void shouldPrintTheStrictPassRateFirstAndWarnOfSamplesCutAtTheCap() {
        final StringWriter text = new StringWriter();
        ReportWriter.printTables(report(), new PrintWriter(text));
        final String header =
                text.toString().lines().filter(l -> l.startsWith("  model")).findFirst().get();
        assertThat(header.indexOf("strict (> 0.9)"))
                .isPositive()
                .isLessThan(header.indexOf("pass (training spec)"));
        assertThat(header).endsWith("capped").doesNotContain("greedy");
        assertThat(text.toString())
                .contains(
                        "warning: tuned, \"v3\" on alfworld/valid_seen: 22.0% of samples stopped"
                                + " at the token cap");
    }
}
