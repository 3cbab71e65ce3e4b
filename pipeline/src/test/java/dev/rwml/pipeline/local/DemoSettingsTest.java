package dev.rwml.pipeline.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DemoSettingsTest {

    @Test
    void shouldGiveEachSizeItsKnobs() {
        assertThat(DemoSettings.of("small", false))
                .isEqualTo(
                        new DemoSettings(
                                "small",
                                300,
                                60,
                                2_000,
                                4,
                                0.3,
                                6,
                                8,
                                48,
                                8,
                                8,
                                2,
                                Duration.ofSeconds(30),
                                3e-4,
                                48,
                                4,
                                8,
                                Duration.ofMinutes(6),
                                0,
                                ""));
        assertThat(DemoSettings.of("TINY", false))
                .isEqualTo(
                        new DemoSettings(
                                "tiny",
                                300,
                                60,
                                2_000,
                                4,
                                0.3,
                                15,
                                8,
                                48,
                                8,
                                8,
                                2,
                                Duration.ofSeconds(20),
                                1e-3,
                                48,
                                4,
                                8,
                                Duration.ofMinutes(6),
                                0,
                                "TEXT=cosine:0.6"));
        assertThat(DemoSettings.of("small", true))
                .isEqualTo(
                        new DemoSettings(
                                "tiny",
                                150,
                                12,
                                200,
                                2,
                                0.3,
                                20,
                                4,
                                48,
                                4,
                                4,
                                1,
                                Duration.ofSeconds(5),
                                3e-3,
                                12,
                                4,
                                4,
                                Duration.ofSeconds(90),
                                3,
                                "TEXT=cosine:0.6"));
        assertThatThrownBy(() -> DemoSettings.of("huge", false))
                .hasMessage("--size must be small or tiny, got 'huge'");
    }

    @Test
    void shouldChangeOnlyTheBudgetOrTheAgentsOfACopy() {
        final DemoSettings tiny = DemoSettings.of("tiny", false);
        final DemoSettings budgeted = tiny.withBudget(Duration.ofMinutes(1), 5);
        assertThat(budgeted.budget()).isEqualTo(Duration.ofMinutes(1));
        assertThat(budgeted.versionBudget()).isEqualTo(5);
        assertThat(budgeted)
                .usingRecursiveComparison()
                .ignoringFields("budget", "versionBudget")
                .isEqualTo(tiny);
        final DemoSettings crowded = tiny.withAgents(9);
        assertThat(crowded.agents()).isEqualTo(9);
        assertThat(crowded).usingRecursiveComparison().ignoringFields("agents").isEqualTo(tiny);
    }
}
