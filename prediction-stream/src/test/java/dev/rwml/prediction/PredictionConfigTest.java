package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.OffsetRange;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StartPositions;
import dev.rwml.schemas.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PredictionConfigTest {

    @TempDir Path dir;

    @Test
    void shouldApplyDocumentedDefaultsWhenOnlyRequiredSettingsAreGiven() {
        final PredictionConfig config =
                PredictionConfig.defaults("r1", "localhost:9092", "mock://x");

        assertThat(config.applicationId()).isEqualTo("rwml-r1-prediction");
        assertThat(config.startFrom()).isEqualTo(StartPosition.AFTER_BASE);
        assertThat(config.groupSize()).isEqualTo(8);
        assertThat(config.batchSize()).isEqualTo(8);
        assertThat(config.batchMaxWait()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.overLength()).isEqualTo(OverLengthPolicy.TRUNCATE_HISTORY);
        assertThat(config.envNames()).isEmpty();
        assertThat(config.splits()).isEmpty();
    }

    @Test
    void shouldReadOneOfTheInputTopicsThePredictionStageIsMeasuredAgainst() {
        final PredictionConfig transitions =
                PredictionConfig.defaults("r1", "localhost:9092", "mock://x");
        final PredictionConfig curriculum =
                transitions.with(Map.of("input", PredictionConfig.INPUT_CURRICULUM));
        final List<String> inputs =
                StageName.PREDICTION.inputTopics(TopicCatalog.defaults().run("r1"));

        assertThat(List.of(transitions.inputTopic(), curriculum.inputTopic()))
                .containsExactlyElementsOf(inputs);
    }

    @Test
    void shouldKeepThePromptBudgetClearOfAWholeCompletion() {
        final PredictionConfig config =
                PredictionConfig.defaults("r1", "localhost:9092", "mock://x")
                        .with(Map.of("prompt.max.tokens", "512", "sampling.max.new.tokens", "64"));

        assertThat(config.promptBudget(512)).isEqualTo(448);
        assertThat(config.promptBudget(4096)).isEqualTo(512);
    }

    @Test
    void shouldRefuseAContextThatCannotHoldAWholeCompletionAndAPrompt() {
        final PredictionConfig config =
                PredictionConfig.defaults("r1", "localhost:9092", "mock://x")
                        .with(Map.of("sampling.max.new.tokens", "250"));

        assertThatThrownBy(() -> config.promptBudget(256))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sampling.max.new.tokens=250 leaves 6 of the model's 256")
                .hasMessageContaining("at most 248");
        assertThat(config.promptBudget(258)).isEqualTo(8);
    }

    @Test
    void shouldLayerFileThenEnvironmentThenOverrides() throws Exception {
        final Path file = dir.resolve("predict.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "run=from-file",
                        "bootstrap.servers=file:9092",
                        "schema.registry.url=http://file:8081",
                        "batch.size=16",
                        "group.size=4",
                        "select.envs=alfworld, retail",
                        "prompt.over.length=dead-letter",
                        "streams.commit.interval.ms=500"));

        final PredictionConfig config =
                PredictionConfig.load(
                        new SettingsDefinition.Sources(
                                Map.of(),
                                Optional.of(file),
                                Map.of(
                                        "RWML_PREDICTION_BATCH_SIZE",
                                        "32",
                                        "RWML_PREDICTION_GROUP_SIZE",
                                        "2"),
                                Map.of("group.size", "6"),
                                Map.of("run", "cli-run")));

        assertThat(config.run()).isEqualTo("cli-run");
        assertThat(config.batchSize()).isEqualTo(32);
        assertThat(config.groupSize()).isEqualTo(6);
        assertThat(config.envNames()).containsExactly("alfworld", "retail");
        assertThat(config.overLength()).isEqualTo(OverLengthPolicy.DEAD_LETTER);
        assertThat(config.streamsOverrides()).containsEntry("commit.interval.ms", "500");
    }

    @Test
    void shouldRoundTripThroughItsMap() {
        final PredictionConfig config =
                PredictionConfig.defaults("r1", "b:1", "mock://x")
                        .with(
                                Map.of(
                                        "select.splits", "train,valid_seen",
                                        "start.from", "2026-11-30T10:00:00Z",
                                        "streams.num.standby.replicas", "1"));

        assertThat(PredictionConfig.fromMap(config.toMap())).isEqualTo(config);
        assertThat(config.splits()).isEqualTo(Set.of("train", "valid_seen"));
        assertThat(config.startFrom())
                .isEqualTo(StartPosition.at(Instant.parse("2026-11-30T10:00:00Z")));
    }

    @Test
    void shouldNameTheSettingAndItsEnvironmentVariableWhenAValueIsInvalid() {
        final PredictionConfig base = PredictionConfig.defaults("r1", "b:1", "mock://x");

        assertThatThrownBy(() -> base.with(Map.of("batch.size", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batch.size")
                .hasMessageContaining("RWML_PREDICTION_");
        assertThatThrownBy(() -> base.with(Map.of("sampling.top.p", "1.5")))
                .hasMessageContaining("sampling.top.p");
        assertThatThrownBy(() -> base.with(Map.of("group.size", "many")))
                .hasMessageContaining("Not a number of type INT");
    }

    @Test
    void shouldRejectUnknownSettingsAndMissingRequiredOnes() {
        assertThatThrownBy(
                        () ->
                                PredictionConfig.fromMap(
                                        Map.of(
                                                "run", "r",
                                                "bootstrap.servers", "b:1",
                                                "schema.registry.url", "mock://x",
                                                "batch.sise", "3")))
                .hasMessageContaining("unknown prediction setting(s) [batch.sise]");
        assertThatThrownBy(() -> PredictionConfig.fromMap(Map.of("run", "r")))
                .hasMessageContaining("bootstrap.servers");
        assertThatThrownBy(() -> PredictionConfig.defaults("bad.run", "b:1", "mock://x"))
                .hasMessageContaining("bad.run");
    }

    @Test
    void shouldParseStartPositionsAndExplainBadOnes() {
        assertThat(StartPosition.parse("LATEST")).isEqualTo(StartPosition.LATEST);
        assertThat(StartPosition.parse("after-base")).isEqualTo(StartPosition.AFTER_BASE);
        assertThat(StartPosition.AFTER_BASE.toString()).isEqualTo("after-base");
        assertThat(StartPosition.parse("1700000000000").timestamp())
                .isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThatThrownBy(() -> StartPosition.parse("yesterday"))
                .hasMessageContaining("after-base, earliest, latest, an ISO-8601 instant");
    }

    @Test
    void shouldStartAfterTheEndOfTheBaseLineageOfEachPartition() {
        final List<OffsetRange> lineage =
                List.of(
                        new OffsetRange("rwml.transitions", 0, 0L, 120L),
                        new OffsetRange("rwml.transitions", 0, 120L, 150L),
                        new OffsetRange("rwml.transitions", 1, 10L, 98L),
                        new OffsetRange("rwml.other", 2, 0L, 500L));

        assertThat(StartPositions.lineageEnds(lineage, "rwml.transitions"))
                .isEqualTo(Map.of(0, 150L, 1, 98L));
        assertThat(StartPositions.lineageEnds(List.of(), "rwml.transitions")).isEmpty();
    }
}
