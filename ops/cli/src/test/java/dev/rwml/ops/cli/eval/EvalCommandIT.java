package dev.rwml.ops.cli.eval;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.EnvKind;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.ops.cli.CliRunner.Result;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rwml eval} as users run it: a run initialised by {@code rwml model init} on the embedded
 * broker and registry, evaluated from its models topic and from an exported checkpoint.
 */
@Tag("system")
class EvalCommandIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final String RUN = "eval-it";

    @TempDir Path dir;

    private static Result onCluster(final String... args) {
        final List<String> all = new ArrayList<>(List.of(args));
        all.addAll(
                List.of(
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        KAFKA.schemaRegistryUrl()));
        return rwml(all.toArray(String[]::new));
    }

    @Test
    void shouldPrintIntervalsAndWriteCsvAndJsonForVersionsOfARunAndAnExportedCheckpoint()
            throws Exception {
        produceTransitions();
        final Result init =
                onCluster(
                        "model",
                        "init",
                        "--run",
                        RUN,
                        "--size",
                        "tiny",
                        "--steps",
                        "20",
                        "--env",
                        "alfworld");
        assertThat(init.code()).as("model init; err:%n%s", init.err()).isZero();

        final Path out = dir.resolve("out");
        final Result eval =
                onCluster(
                        "eval",
                        "--run",
                        RUN,
                        "--versions",
                        "0,latest",
                        "--split",
                        "alfworld/valid_seen,alfworld/valid_unseen",
                        "--transitions",
                        "8",
                        "--samples",
                        "2",
                        "--bootstrap",
                        "100",
                        "--drift-texts",
                        "8",
                        "--per-episode",
                        "4",
                        "--greedy",
                        "--out",
                        out.toString());

        assertThat(eval.code()).as("eval; err:%n%s%nout:%n%s", eval.err(), eval.out()).isZero();
        assertThat(eval.out())
                .contains(
                        "alfworld/valid_seen",
                        "alfworld/valid_unseen",
                        RUN + "@0",
                        "per task type",
                        "per next-state kind",
                        "TEXT",
                        "drift from the run's version 0")
                .containsPattern("\\d\\.\\d{3} \\[\\d\\.\\d{3}, \\d\\.\\d{3}\\]")
                .as("the paper's defaults until the run has rewarded groups")
                .contains("training reward spec of " + RUN + ": TEXT=embedding-cosine:0.8");
        assertThat(eval.err())
                .as("progress goes to stderr, the transitions scored as a bar")
                .contains("eval: loading " + RUN + "@0")
                .containsPattern(
                        "transitions of " + RUN + "@0 on alfworld/valid_seen +.*\\d+/\\d+");
        final List<String> csv = Files.readAllLines(out.resolve("eval.csv"));
        assertThat(csv.get(0)).isEqualTo(ReportWriter.CSV_HEADER);
        assertThat(csv)
                .anyMatch(l -> l.startsWith(RUN + "@0," + RUN + ",0,alfworld/valid_seen,all,all,"))
                .anyMatch(
                        l -> l.contains(",drift,parameters,") && l.contains(",changed_fraction,"));
        assertThat(Files.readString(out.resolve("eval.json")))
                .contains("\"label\" : \"" + RUN + "@0\"", "\"byTaskType\"", "\"fraction\"");
        final int scored =
                csv.stream()
                        .map(l -> l.split(",", -1))
                        .filter(c -> c[4].equals("all") && c[7].equals("pass"))
                        .mapToInt(c -> Integer.parseInt(c[6]))
                        .sum();
        final List<String> transitions = Files.readAllLines(out.resolve("transitions.csv"));
        assertThat(transitions.get(0)).isEqualTo(String.join(",", ReportWriter.TRANSITION_COLUMNS));
        assertThat(transitions)
                .as("one row per model, set and scored transition")
                .hasSize(1 + scored)
                .filteredOn(l -> !l.equals(transitions.get(0)))
                .allSatisfy(
                        l ->
                                assertThat(l.split(",", -1))
                                        .as("every figure filled, the greedy ones too: %s", l)
                                        .hasSize(ReportWriter.TRANSITION_COLUMNS.size())
                                        .doesNotContain(""));
        assertThat(Files.readString(out.resolve("report.md")))
                .contains("## Strict pass rate", "## Greedy strict pass rate");

        final Path models = dir.resolve("models");
        final Result export =
                onCluster(
                        "models",
                        "export",
                        "--run",
                        RUN,
                        "--version",
                        "0",
                        "--dir",
                        models.toString());
        assertThat(export.code()).as("export; err:%n%s", export.err()).isZero();
        final Result fromDir =
                rwml(
                        "eval",
                        "--model-dir",
                        models.toString(),
                        "--split",
                        "alfworld/valid_seen",
                        "--transitions",
                        "8",
                        "--samples",
                        "2",
                        "--bootstrap",
                        "100",
                        "--drift-texts",
                        "0",
                        "--per-episode",
                        "4",
                        "--greedy",
                        "--agent",
                        "--agent-split",
                        "alfworld/valid_unseen",
                        "--agent-episodes",
                        "2",
                        "--out",
                        dir.resolve("out-dir").toString());
        assertThat(fromDir.code()).as("eval --model-dir; err:%n%s", fromDir.err()).isZero();
        final String firstTable = eval.out().substring(eval.out().indexOf("alfworld/valid_seen"));
        final String line0 =
                firstTable.lines().filter(l -> l.strip().startsWith(RUN + "@0 ")).findFirst().get();
        assertThat(fromDir.out())
                .as("the exported version 0 scores as version 0 read from the topic")
                .contains(line0)
                .contains("world-model-guided agent", "no world model", RUN + "@0");
        assertThat(Files.readString(dir.resolve("out-dir").resolve("report.html")))
                .contains("<svg", "Guided agent: invalid-action rate", "alfworld/valid_seen");
        assertThat(Files.readString(dir.resolve("out-dir").resolve("report.md")))
                .contains("| model | alfworld/valid_seen |");
        assertThat(Files.readString(out.resolve("report.html")))
                .contains("<svg", "Parameters changed from the base");
    }

    private static void produceTransitions() {
        try (Admin admin =
                Admin.create(
                        Map.of(
                                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers()))) {
            final TopicCatalog catalog = TopicCatalog.defaults();
            new TopicAdmin(admin, catalog).ensure(catalog.shared());
        }
        new TransitionProducer(
                        ProducerConfig.builder(
                                        EnvKind.ALFWORLD,
                                        KafkaSettings.of(
                                                Connection.of(
                                                        KAFKA.bootstrapServers(),
                                                        KAFKA.schemaRegistryUrl())))
                                .agents(1)
                                .episodes(4)
                                .seed(3)
                                .policy(PolicyKind.EPSILON)
                                .epsilon(0.3)
                                .baseTime(Instant.now())
                                .build(),
                        new SimpleMeterRegistry(),
                        ProgressListener.NONE)
                .run();
    }
}
