package dev.rwml.schemas.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.Transition;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopicCatalogTest {
    private final TopicCatalog catalog = TopicCatalog.defaults();

    @Test
    void shouldNameSharedAndRunTopics() {
        final RunTopics run = catalog.run("r1");
        assertThat(catalog.transitions().name()).isEqualTo("rwml.transitions");
        assertThat(catalog.shared()).containsExactly(catalog.transitions());
        assertThat(run.all().stream().map(TopicSpec::name).collect(Collectors.toList()))
                .containsExactly(
                        "rwml.r1.predictions",
                        "rwml.r1.rewards",
                        "rwml.r1.curriculum",
                        "rwml.r1.difficulty",
                        "rwml.r1.models",
                        "rwml.r1.model-chunks",
                        "rwml.r1.dead-letters",
                        "rwml.r1.rollouts");
        assertThat(catalog.forRun("r1")).hasSize(9);
    }

    @Test
    void shouldPairEachTopicWithItsKeySerdeAndValueType() {
        assertThat(catalog.transitions().valueType()).isEqualTo(Transition.class);
        assertThat(catalog.run("r1").predictions().valueType()).isEqualTo(PredictionGroup.class);
        assertThat(catalog.run("r1").models().valueType()).isEqualTo(ModelVersion.class);
        assertThat(catalog.transitions().keySerde().getClass())
                .isEqualTo(Serdes.String().getClass());
        assertThat(catalog.run("r1").deadLetters().keySerde().getClass())
                .isEqualTo(Serdes.ByteArray().getClass());
    }

    @Test
    void shouldCoPartitionTransitionsPredictionsAndRewards() {
        final TopicCatalog eight = new TopicCatalog(CatalogSettings.defaults().withPartitions(8));
        final RunTopics run = eight.run("r1");
        for (final TopicSpec<?, ?> spec :
                List.of(eight.transitions(), run.predictions(), run.rewards())) {
            assertThat(spec.partitions()).as(spec.name()).isEqualTo(8);
            assertThat(spec.partitionRule()).isEqualTo(PartitionRule.CO_PARTITIONED);
        }
        assertThat(run.models().partitions()).isEqualTo(1);
        assertThat(run.modelChunks().partitionRule()).isEqualTo(PartitionRule.EXACT);
    }

    @Test
    void shouldKeepTransitionsAndModelsForeverAndAllowLargeChunks() {
        assertThat(catalog.transitions().configs())
                .containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1")
                .containsEntry(TopicConfig.RETENTION_BYTES_CONFIG, "-1")
                .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, "delete");
        assertThat(catalog.run("r1").models().configs())
                .containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1");
        assertThat(
                        Integer.parseInt(
                                catalog.run("r1")
                                        .modelChunks()
                                        .configs()
                                        .get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG)))
                .isGreaterThan(8 * 1024 * 1024);
        assertThat(catalog.run("r1").predictions().configs())
                .containsEntry(
                        TopicConfig.RETENTION_MS_CONFIG, Long.toString(7L * 24 * 3600 * 1000));
    }

    @ParameterizedTest
    @ValueSource(strings = {"r1", "exp_2026-11", "A", "x-y_z"})
    void shouldAcceptValidRunNames(final String name) {
        assertThat(RunName.of(name).value()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has.dot", "has space", "slash/name", "ünïcode", "a*"})
    void shouldRejectInvalidRunNamesWithClearMessage(final String name) {
        assertThatThrownBy(() -> catalog.run(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("run name '" + name + "' is invalid")
                .hasMessageContaining("letters, digits, '_' or '-'");
    }

    @Test
    void shouldRejectTooLongAndNullRunNames() {
        assertThatThrownBy(() -> RunName.of("r".repeat(RunName.MAX_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RunName.of(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RunName.of("r".repeat(RunName.MAX_LENGTH)).value()).hasSize(64);
    }

    @Test
    void shouldRejectInvalidSettings() {
        assertThatThrownBy(() -> CatalogSettings.defaults().withPartitions(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitions");
        assertThatThrownBy(() -> CatalogSettings.defaults().withReplicationFactor((short) 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
