package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.runtime.settings.SettingsDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainerConfigTest {

    @TempDir Path dir;

    @Test
    void shouldUseThePapersStalenessBoundAndGrpoByDefault() {
        final TrainerConfig c = TrainerConfig.defaults("run-1");
        assertThat(c.stalenessBound()).isEqualTo(4);
        assertThat(c.objective()).isEqualTo(Objective.GRPO);
        assertThat(c.clipEpsilonLow()).isEqualTo(0.2);
        assertThat(c.clipEpsilonHigh()).isEqualTo(0.2);
        assertThat(c.klCoefficient()).isEqualTo(0.001);
    }

    @Test
    void shouldLetTheEnvironmentOverrideTheFileWhichOverridesDefaults() throws Exception {
        final Path file = dir.resolve("trainer.properties");
        Files.writeString(file, "groups.per.step=16\npublish.every.steps=2\nobjective=sft\n");
        final TrainerConfig c =
                TrainerConfig.load(
                        new SettingsDefinition.Sources(
                                Map.of(
                                        "bootstrap.servers", "up:9092",
                                        "schema.registry.url", "http://up:8081"),
                                Optional.of(file),
                                Map.of(
                                        "RWML_TRAINER_GROUPS_PER_STEP", "32",
                                        "RWML_TRAINER_BATCH_TIMEOUT", "PT0.5S",
                                        "RWML_TRAINER_RUN", "from-env",
                                        "UNRELATED", "x"),
                                Map.of(),
                                Map.of("run", "run-1")));
        assertThat(c.groupsPerStep()).isEqualTo(32);
        assertThat(c.publishEverySteps()).isEqualTo(2);
        assertThat(c.objective()).isEqualTo(Objective.SFT);
        assertThat(c.batchTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.run()).as("--run is above the environment").isEqualTo("run-1");
    }

    @Test
    void shouldNameTheSettingWhenAValueDoesNotParse() {
        assertThatThrownBy(
                        () -> TrainerConfig.defaults("r").with(Map.of("publish.interval", "60s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("publish.interval")
                .hasMessageContaining("ISO-8601");
    }

    @Test
    void shouldRejectUnknownSettingsInsteadOfIgnoringThem() {
        assertThatThrownBy(() -> TrainerConfig.defaults("r").with(Map.of("group.per.step", "3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group.per.step");
    }

    @Test
    void shouldRejectANegativeStalenessBound() {
        assertThatThrownBy(() -> TrainerConfig.defaults("r").with(Map.of("staleness.bound", "-1")))
                .hasMessageContaining("staleness.bound")
                .hasMessageContaining("at least 0");
    }

    @Test
    void shouldRejectRunNamesThatCannotBeTopicNames() {
        assertThatThrownBy(() -> TrainerConfig.defaults("a b"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
