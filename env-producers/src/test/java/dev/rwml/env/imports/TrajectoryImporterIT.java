package dev.rwml.env.imports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.TransitionsTopic;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.settings.Connection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class TrajectoryImporterIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    @TempDir Path dir;

    private static String episode(final String id, final int steps) {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < steps; i++) {
            s.append(i == 0 ? "" : ",")
                    .append("{\"action\":\"act ")
                    .append(i)
                    .append("\",\"observation\":\"obs ")
                    .append(i + 1)
                    .append("\",\"kind\":\"USER_MESSAGE\",\"done\":")
                    .append(i == steps - 1)
                    .append("}");
        }
        return "{\"env\":\"retail\",\"split\":\"imported-it\",\"episode_id\":\""
                + id
                + "\",\"task\":\"return the shoes\",\"initial_observation\":\"obs 0\","
                + "\"policy\":\"gpt\",\"steps\":["
                + s
                + "],\"metadata\":{\"source\":\"tau2\"}}";
    }

    @Test
    void shouldImportTheValidEpisodesAndReportTheMalformedLines() throws Exception {
        final Path file = dir.resolve("trajectories.jsonl");
        Files.write(
                file,
                List.of(
                        episode("it-a", 3),
                        "{\"env\": \"retail\", not json",
                        episode("it-b", 2),
                        "",
                        episode("it-c", 1).replaceFirst(",\"task\":\"return the shoes\"", ""),
                        episode("it-d", 0)));
        final ImportConfig config =
                new ImportConfig(
                        file,
                        Optional.empty(),
                        Optional.empty(),
                        1,
                        Instant.parse("2026-02-01T00:00:00Z"),
                        Duration.ofSeconds(5),
                        KafkaSettings.of(
                                Connection.of(
                                        KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl())));

        final ImportResult result = TrajectoryImporter.run(config);

        assertThat(result.episodes()).isEqualTo(2);
        assertThat(result.transitions()).isEqualTo(5);
        assertThat(result.skipped()).extracting(SkippedLine::lineNumber).containsExactly(2, 5, 6);
        assertThat(result.skipped().get(0).reason()).startsWith("not valid JSON");
        assertThat(result.skipped().get(1).reason()).isEqualTo("missing field \"task\"");
        assertThat(result.skipped().get(2).reason()).contains("\"steps\" is empty");
        assertThat(result.summary())
                .isEqualTo("imported 2 episodes / 5 transitions, skipped 3 lines");

        final Set<String> keys =
                Set.of(
                        "retail/it-a/0",
                        "retail/it-a/1",
                        "retail/it-a/2",
                        "retail/it-b/0",
                        "retail/it-b/1");
        final Map<String, List<Transition>> published =
                TransitionsTopic.read(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl(), keys);
        assertThat(published.keySet()).isEqualTo(keys);
        final Transition last = published.get("retail/it-a/2").get(0);
        assertThat(last.getObservation()).isEqualTo("obs 2");
        assertThat(last.getAction()).isEqualTo("act 2");
        assertThat(last.getNextObservation()).isEqualTo("obs 3");
        assertThat(last.getNextKind()).isEqualTo(NextStateKind.USER_MESSAGE);
        // The runner's history semantics: (observation, the action taken on it), last H = 1.
        assertThat(last.getHistory()).containsExactly(new Turn("act 1", "obs 1"));
        assertThat(last.getDone()).isTrue();
        assertThat(last.getPolicy().getName()).isEqualTo("gpt");
        assertThat(last.getEnv().getSplit()).isEqualTo("imported-it");
        assertThat(last.getMetadata()).containsEntry("source", "tau2");
        assertThat(published.get("retail/it-b/0").get(0).getEventTime())
                .isEqualTo(Instant.parse("2026-02-01T00:01:00Z"));
    }
}
