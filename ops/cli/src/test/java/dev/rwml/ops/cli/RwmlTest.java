package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.ops.cli.CliRunner.Result;
import org.junit.jupiter.api.Test;

class RwmlTest {

    @Test
    void shouldListUpSubcommandWhenAskedForHelp() {
        final Result help = rwml("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("up").contains("--verbose");
    }

    @Test
    void shouldDescribeUpOptionsWhenAskedForUpHelp() {
        final Result help = rwml("up", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--data-dir").contains("--partitions").contains("--run");
    }

    @Test
    void shouldFailWithUsageErrorWhenNoSubcommandIsGiven() {
        final Result none = rwml();
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err()).contains("Name a subcommand");
    }

    @Test
    void shouldRejectNonNumericPartitionsBeforeStartingAnything() {
        final Result up = rwml("up", "--partitions", "many");
        assertThat(up.code()).isEqualTo(2);
        assertThat(up.err()).contains("--partitions").contains("many");
    }

    @Test
    void shouldAcceptVerboseAfterTheSubcommand() {
        assertThat(rwml("up", "--verbose", "--help").code()).isZero();
    }

    @Test
    void shouldPassTheTrainRecipeFlagToTheTrainersSettings() {
        // an unknown recipe is refused by the settings' validator, before any connection
        final Result train =
                rwml(
                        "train",
                        "--run",
                        "r",
                        "--bootstrap-servers",
                        "localhost:1",
                        "--schema-registry-url",
                        "http://localhost:1",
                        "--recipe",
                        "ppo");
        assertThat(train.code()).isNotZero();
        assertThat(train.err()).contains("recipe must be grpo, dr-grpo or dapo, got 'ppo'");
    }
}
