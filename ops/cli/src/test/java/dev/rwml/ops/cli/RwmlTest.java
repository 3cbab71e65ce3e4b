package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RwmlTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args) {
        final CommandLine cli = Rwml.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void shouldListUpSubcommandWhenAskedForHelp() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("up").contains("--verbose");
    }

    @Test
    void shouldDescribeUpOptionsWhenAskedForUpHelp() {
        assertThat(run("up", "--help")).isZero();
        assertThat(out.toString())
                .contains("--data-dir")
                .contains("--partitions")
                .contains("--run");
    }

    @Test
    void shouldFailWithUsageErrorWhenNoSubcommandIsGiven() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).contains("Name a subcommand");
    }

    @Test
    void shouldRejectNonNumericPartitionsBeforeStartingAnything() {
        assertThat(run("up", "--partitions", "many")).isEqualTo(2);
        assertThat(err.toString()).contains("--partitions").contains("many");
    }

    @Test
    void shouldAcceptVerboseAfterTheSubcommand() {
        assertThat(run("up", "--verbose", "--help")).isZero();
    }

    @Test
    void shouldPassTheTrainRecipeFlagToTheTrainersSettings() {
        // an unknown recipe is refused by the settings' validator, before any connection
        assertThat(
                        run(
                                "train",
                                "--run",
                                "r",
                                "--bootstrap-servers",
                                "localhost:1",
                                "--schema-registry-url",
                                "http://localhost:1",
                                "--recipe",
                                "ppo"))
                .isNotZero();
        assertThat(err.toString()).contains("recipe must be grpo, dr-grpo or dapo, got 'ppo'");
    }
}
