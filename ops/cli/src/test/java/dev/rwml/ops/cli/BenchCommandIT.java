package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.pipeline.bench.Arm;
import dev.rwml.pipeline.bench.BenchRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ./rwml bench --quick --size tiny} as its own process, every arm end to end on its own
 * embedded cluster, then run again to resume: what its report says is computed from the
 * per-transition rows it writes.
 */
@Tag("system")
class BenchCommandIT {

    private static final String UNSEEN = "alfworld/valid_unseen";
    private static final String OLDER = "alfworld-older/valid_unseen";
    private static final Duration BENCH = Duration.ofMinutes(8);

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("bench-command-it");

    @Test
    void shouldTrainEveryArmFromTheSameBaseAndPairThemTransitionByTransition() throws Exception {
        final Path dir = rwml.work().resolve("bench");
        final Child first = bench("bench", dir);
        final String output = Files.readString(first.out());

        assertThat(output)
                .as("the filter model is trained, then judges the rwml arm's slice")
                .contains("Filter model: version", "Filter pass:", "easy (");
        assertThat(Pattern.compile("Replay into run bench-").matcher(output).results().count())
                .as("every arm and the filter model replayed; output:%n%s", output)
                .isEqualTo(Arm.values().length + 1);
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

        // one row per model, set and held-out transition: the base, every arm's last version and
        // the versions at RWML's steps, each on both sets
        final Path report = dir.resolve("report");
        final List<Map<String, String>> rows = rows(report.resolve("transitions.csv"));
        final Map<String, Set<String>> setsByModel = new LinkedHashMap<>();
        rows.forEach(
                r ->
                        setsByModel
                                .computeIfAbsent(r.get("model"), m -> new LinkedHashSet<>())
                                .add(r.get("set")));
        assertThat(setsByModel.keySet())
                .hasSize(1 + Arm.values().length + extra.size())
                .first()
                .isEqualTo(BenchRun.BASE_RUN + "@0");
        assertThat(setsByModel.keySet()).containsAll(extra);
        assertThat(setsByModel.values())
                .allSatisfy(s -> assertThat(s).containsExactly(UNSEEN, OLDER));

        // every paired difference is the mean of the per-transition differences of the CSV
        final String summary = Files.readString(report.resolve("bench.md"));
        final String rwmlModel = last(setsByModel.keySet(), "bench-rwml-s1@");
        final double expected = meanDifference(rows, rwmlModel, BenchRun.BASE_RUN + "@0", UNSEEN);
        final Matcher line =
                Pattern.compile(
                                "\\| rwml - base \\| ([+-]\\d\\.\\d{3}) \\[([+-]\\d\\.\\d{3}),"
                                        + " ([+-]\\d\\.\\d{3})\\] (above 0|below 0|contains 0) \\|")
                        .matcher(summary);
        assertThat(line.find()).as(summary).isTrue();
        assertThat(line.group(1)).isEqualTo(String.format(Locale.ROOT, "%+.3f", expected));
        assertThat(Double.parseDouble(line.group(2)))
                .isLessThanOrEqualTo(Double.parseDouble(line.group(3)));
        assertThat(summary)
                .contains(
                        "| rwml - wm-sft at rwml's steps |",
                        "| rwml - rwml-nofilter |",
                        "| rwml-nofilter at rwml's steps - wm-sft at rwml's steps |",
                        "| rwml-nofilter - wm-sft |",
                        "## Paired differences on the older grammar",
                        "## The offline filter",
                        "## Forgetting out of domain",
                        "## Guided agent",
                        "reduction vs random");
        // replays run in rounds, so no arm drops a group it sampled as too stale
        final Matcher trained =
                Pattern.compile(
                                "\\| ([a-z-]+) \\| 1 \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+)"
                                        + " \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\|")
                        .matcher(summary.substring(summary.indexOf("## What each arm trained on")));
        final Set<String> armsTrained = new LinkedHashSet<>();
        while (trained.find()) {
            armsTrained.add(trained.group(1));
            assertThat(trained.group(5)).as("dropped stale, %s", trained.group(1)).isEqualTo("0");
            assertThat(Long.parseLong(trained.group(3)))
                    .as("sampled = trained + dropped + skipped")
                    .isEqualTo(
                            Long.parseLong(trained.group(4))
                                    + Long.parseLong(trained.group(5))
                                    + Long.parseLong(trained.group(6))
                                    + Long.parseLong(trained.group(7)));
        }
        assertThat(armsTrained)
                .containsExactlyInAnyOrder(
                        Arrays.stream(Arm.values()).map(Arm::id).toArray(String[]::new));
        assertThat(report.resolve("eval.csv")).isNotEmptyFile();
        assertThat(report.resolve("report.html")).isNotEmptyFile();

        // run again: nothing is trained twice, the same models are evaluated
        final Child second = bench("bench-again", dir);
        final String again = Files.readString(second.out());
        assertThat(again).doesNotContain("Replay into run");
        assertThat(Pattern.compile("seed 1: done before \\(run ").matcher(again).results().count())
                .as(again)
                .isEqualTo(Arm.values().length);
        final Set<String> modelsAgain = new LinkedHashSet<>();
        rows(report.resolve("transitions.csv")).forEach(r -> modelsAgain.add(r.get("model")));
        assertThat(modelsAgain).containsExactlyElementsOf(setsByModel.keySet());
    }

    /** {@code ./rwml bench --quick --size tiny --dir dir}, expected to exit 0. */
    private Child bench(final String name, final Path dir) throws Exception {
        final Child child =
                rwml.launch(
                        name,
                        List.of("bench", "--quick", "--size", "tiny", "--dir", dir.toString()));
        RwmlProcesses.assertExits(child, BENCH, 0);
        return child;
    }

    /** The model of {@code prefix} with the highest version. */
    private static String last(final Set<String> models, final String prefix) {
        return models.stream()
                .filter(m -> m.startsWith(prefix))
                .max(
                        (a, b) ->
                                Long.compare(
                                        Long.parseLong(a.substring(prefix.length())),
                                        Long.parseLong(b.substring(prefix.length()))))
                .orElseThrow();
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
