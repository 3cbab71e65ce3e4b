package dev.rwml.ops.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import dev.rwml.evaluation.ParameterDrift;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** rwml eval's CSV, on a report built by hand. */
class ReportWriterTest {

    private static EvalReport report() {
        final Interval p = new Interval(0.22, 0.17, 0.27);
        final EvalReport.Figures f = new EvalReport.Figures(100, p, p, p, p);
        final EvalReport.SetResult set =
                new EvalReport.SetResult("alfworld/valid_seen", 100, 0, f, Map.of(), Map.of());
        final EvalReport.Drift drift =
                new EvalReport.Drift(
                        "tuned, v0",
                        new ParameterDrift(3, 10),
                        Map.of("alfworld", 0.05),
                        Map.of("alfworld", 1.5),
                        Map.of("alfworld", 40));
        final EvalReport.ModelResult model =
                new EvalReport.ModelResult("tuned, \"v3\"", "tuned", 3, List.of(set), drift, 1);
        final Interval i = new Interval(0.3, 0.25, 0.35);
        final EvalReport.AgentResult agent =
                new EvalReport.AgentResult(
                        "alfworld/valid_unseen", EvalReport.NO_WORLD_MODEL, 20, 600, i, i, i, 0.2);
        return new EvalReport(4, 7, 1000, Map.of(), List.of(model), "settings", List.of(agent));
    }

    @Test
    void shouldWriteOneQuotedRowPerModelSetGroupAndMetric() {
        assertThat(ReportWriter.csv(report()).lines())
                .containsExactly(
                        ReportWriter.CSV_HEADER,
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,100,pass,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,100,strict,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,100,exact,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,alfworld/valid_seen,all,all,100,similarity,"
                                + "0.220000,0.170000,0.270000",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,parameters,10,changed_fraction,"
                                + "0.300000,,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,alfworld,40,kl,0.050000,,",
                        "\"tuned, \"\"v3\"\"\",tuned,3,,drift,alfworld,40,perplexity,1.500000,,",
                        "no world model,,,alfworld/valid_unseen,agent,all,20,invalid_rate,"
                                + "0.300000,0.250000,0.350000",
                        "no world model,,,alfworld/valid_unseen,agent,all,20,success,"
                                + "0.300000,0.250000,0.350000",
                        "no world model,,,alfworld/valid_unseen,agent,all,20,steps_per_success,"
                                + "0.300000,0.250000,0.350000",
                        "no world model,,,alfworld/valid_unseen,agent,all,20,avoided_per_step,"
                                + "0.200000,,");
    }
}
