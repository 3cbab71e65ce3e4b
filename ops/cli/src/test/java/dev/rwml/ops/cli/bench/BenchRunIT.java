package dev.rwml.ops.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.ops.cli.demo.DemoSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rwml bench --quick} with every arm end to end on its own embedded cluster, resumed. */
@Tag("system")
class BenchRunIT {

    @TempDir Path dir;

    private BenchRun.Settings quick() {
        final DemoSettings demo = DemoSettings.of("tiny", true);
        return new BenchRun.Settings(
                dir,
                demo,
                new BenchRun.Data(1, demo.pretrainEpisodes(), 4, 2, 3),
                new BenchRun.Training(
                        List.of(Arm.values()),
                        demo.initSteps(),
                        1,
                        demo.groupsPerStep(),
                        demo.learningRate(),
                        0.02,
                        2,
                        false,
                        demo.maxNewTokens(),
                        Map.of()),
                new BenchRun.Eval(12, 4, 2, 1.0, 200, 2));
    }

    @Test
    void shouldTrainEveryArmFromTheSameBaseAndPairThemTransitionByTransition() throws Exception {
        final StringWriter first = new StringWriter();
        final BenchRun.Result result =
                new BenchRun(quick(), new PrintWriter(first, true), false).run();
        final String output = first.toString();

        assertThat(result.trainedArms()).as("output:%n%s", output).isEqualTo(Arm.values().length);
        assertThat(output)
                .as("the filter model is trained, then judges the rwml arm's slice")
                .contains("Filter model: version", "Filter pass:", "easy (");
        // the other arms are also taken at RWML's number of optimizer steps, unless that is
        // their last version
        final List<String> extra = new ArrayList<>();
        for (final Arm arm : List.of(Arm.WM_SFT, Arm.RWML_NO_FILTER, Arm.RWML_ONLINE)) {
            final Matcher matched =
                    Pattern.compile(
                                    "Seed 1: "
                                            + arm.id()
                                            + " version (\\d+) has (\\d+) optimizer steps, RWML's"
                                            + " last version (\\d+)( \\(its last)?")
                            .matcher(output);
            assertThat(matched.find()).as("%s; output:%n%s", arm, output).isTrue();
            assertThat(Long.parseLong(matched.group(2)))
                    .isGreaterThanOrEqualTo(Long.parseLong(matched.group(3)));
            if (matched.group(4) == null) {
                extra.add("bench-" + arm.id() + "-s1@" + matched.group(1));
            }
        }
        final int models = 1 + Arm.values().length + extra.size();
        assertThat(result.report().models())
                .extracting(EvalReport.ModelResult::label)
                .hasSize(models)
                .first()
                .isEqualTo(BenchRun.BASE_RUN + "@0");
        assertThat(result.report().models())
                .extracting(EvalReport.ModelResult::label)
                .containsAll(extra);
        assertThat(result.report().models())
                .allSatisfy(
                        m ->
                                assertThat(m.sets())
                                        .extracting(EvalReport.SetResult::set)
                                        .containsExactly(
                                                BenchEvaluation.UNSEEN, BenchEvaluation.OLDER));

        // every paired difference is the mean of the per-transition differences of the CSV
        final List<Map<String, String>> rows = rows(result.reportDir().resolve("transitions.csv"));
        for (final EvalReport.ModelResult m : result.report().models()) {
            for (final EvalReport.SetResult set : m.sets()) {
                assertThat(
                                rows.stream()
                                        .filter(
                                                r ->
                                                        r.get("model").equals(m.label())
                                                                && r.get("set").equals(set.set())))
                        .as("%s on %s", m.label(), set.set())
                        .hasSize(set.rows().size())
                        .isNotEmpty();
            }
        }
        final String bench = Files.readString(result.reportDir().resolve("bench.md"));
        final String rwml = label(result, "bench-rwml-s1");
        final double expected =
                meanDifference(rows, rwml, BenchRun.BASE_RUN + "@0", BenchEvaluation.UNSEEN);
        final Matcher line =
                Pattern.compile(
                                "\\| rwml - base \\| ([+-]\\d\\.\\d{3}) \\[([+-]\\d\\.\\d{3}),"
                                        + " ([+-]\\d\\.\\d{3})\\] (above 0|below 0|contains 0) \\|")
                        .matcher(bench);
        assertThat(line.find()).as(bench).isTrue();
        assertThat(line.group(1)).isEqualTo(String.format(Locale.ROOT, "%+.3f", expected));
        assertThat(Double.parseDouble(line.group(2)))
                .isLessThanOrEqualTo(Double.parseDouble(line.group(3)));
        assertThat(bench)
                .contains(
                        "| rwml - wm-sft" + BenchSummary.MATCHED + " |",
                        "| rwml - rwml-nofilter |",
                        "## The offline filter",
                        "## Forgetting out of domain",
                        "## Guided agent",
                        "reduction vs random");

        final StringWriter second = new StringWriter();
        final BenchRun.Result resumed =
                new BenchRun(quick(), new PrintWriter(second, true), false).run();
        assertThat(resumed.trainedArms()).as("output:%n%s", second).isZero();
        assertThat(second.toString()).contains("done before");
        assertThat(resumed.report().models())
                .extracting(EvalReport.ModelResult::label)
                .isEqualTo(
                        result.report().models().stream()
                                .map(EvalReport.ModelResult::label)
                                .toList());
    }

    private static String label(final BenchRun.Result result, final String run) {
        return result.report().models().stream()
                .filter(m -> m.run().equals(run))
                .max((a, b) -> Long.compare(a.version(), b.version()))
                .orElseThrow()
                .label();
    }

    private static double meanDifference(
            final List<Map<String, String>> rows,
            final String a,
            final String b,
            final String set) {
        final Map<String, Double> strictB = new HashMap<>();
        rows.stream()
                .filter(r -> r.get("model").equals(b) && r.get("set").equals(set))
                .forEach(r -> strictB.put(r.get("transition_id"), strict(r)));
        final List<Double> diffs = new ArrayList<>();
        rows.stream()
                .filter(r -> r.get("model").equals(a) && r.get("set").equals(set))
                .forEach(r -> diffs.add(strict(r) - strictB.get(r.get("transition_id"))));
        assertThat(diffs).hasSize(strictB.size()).isNotEmpty();
        return diffs.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    private static double strict(final Map<String, String> row) {
        return Double.parseDouble(row.get("strict"));
    }

    private static List<Map<String, String>> rows(final Path csv) throws Exception {
        try (MappingIterator<Map<String, String>> it =
                new CsvMapper()
                        .readerFor(Map.class)
                        .with(CsvSchema.emptySchema().withHeader())
                        .readValues(csv.toFile())) {
            return it.readAll();
        }
    }
}
