package dev.rwml.ops.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.ops.cli.demo.DemoSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rwml bench --quick} end to end on its own embedded cluster, then resumed. */
@Tag("system")
class BenchRunIT {

    @TempDir Path dir;

    private BenchRun.Settings quick() {
        return new BenchRun.Settings(dir, DemoSettings.of("tiny", true), 1, 3, 1, 12, 2, 200, 2);
    }

    @Test
    void shouldTrainEveryArmFromTheSameBaseEvaluateThemAndSkipThemWhenResumed() throws Exception {
        final StringWriter first = new StringWriter();
        final BenchRun.Result result = new BenchRun(quick(), new PrintWriter(first, true)).run();

        assertThat(result.trainedArms()).as("output:%n%s", first).isEqualTo(3);
        // WM-SFT and RWML without subsampling are also taken at RWML's number of optimizer
        // steps, unless that is their last version
        final List<String> extra = new ArrayList<>();
        for (final String arm : List.of("wm-sft", "rwml-nosub")) {
            final Matcher matched =
                    Pattern.compile(
                                    "Seed 1: "
                                            + arm
                                            + " version (\\d+) has (\\d+) optimizer steps, RWML's"
                                            + " last version (\\d+)( \\(its last)?")
                            .matcher(first.toString());
            assertThat(matched.find()).as("%s; output:%n%s", arm, first).isTrue();
            assertThat(Long.parseLong(matched.group(2)))
                    .isGreaterThanOrEqualTo(Long.parseLong(matched.group(3)));
            if (matched.group(4) == null) {
                extra.add("bench-" + arm + "-s1@" + matched.group(1));
            }
        }
        final int models = 4 + extra.size();
        assertThat(result.report().models())
                .extracting(EvalReport.ModelResult::label)
                .hasSize(models)
                .first()
                .isEqualTo(BenchRun.BASE_RUN + "@0");
        assertThat(result.report().models())
                .extracting(EvalReport.ModelResult::label)
                .containsAll(extra);
        assertThat(result.report().models().subList(1, models))
                .allSatisfy(
                        m -> {
                            assertThat(m.version()).as(m.label()).isPositive();
                            assertThat(m.drift().baseLabel()).isEqualTo(m.run() + "@0");
                        });
        assertThat(result.report().agents()).hasSize(models + 1);
        final String bench = Files.readString(result.reportDir().resolve("bench.md"));
        assertThat(bench).contains("| base |", "| wm-sft |", "| rwml |", "| rwml-nosub |");
        for (final String label : extra) {
            assertThat(bench)
                    .contains(
                            "| "
                                    + label.replaceFirst("^bench-", "").replaceFirst("-s1@.*", "")
                                    + BenchSummary.MATCHED
                                    + " |");
        }
        assertThat(result.reportDir().resolve("report.html")).exists();

        final StringWriter second = new StringWriter();
        final BenchRun.Result resumed = new BenchRun(quick(), new PrintWriter(second, true)).run();
        assertThat(resumed.trainedArms()).as("output:%n%s", second).isZero();
        assertThat(second.toString()).contains("done before");
        assertThat(resumed.report().models())
                .extracting(EvalReport.ModelResult::label)
                .isEqualTo(
                        result.report().models().stream()
                                .map(EvalReport.ModelResult::label)
                                .toList());
    }
}
