package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StageMetricsOptionTest {

    @ParameterizedTest
    @ValueSource(strings = {"predict", "reward", "train"})
    void shouldOfferMetricsPortOnEveryStageCommand(final String stage) {
        final CliRunner.Result help = rwml(stage, "--help");

        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--metrics-port=PORT").contains("/metrics");
    }
}
