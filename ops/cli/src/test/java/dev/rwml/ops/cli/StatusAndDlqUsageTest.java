package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Usage errors of {@code rwml status} and {@code rwml dlq}, caught before any connection. */
class StatusAndDlqUsageTest {

    private static final String[] CLUSTER = {
        "--bootstrap-servers", "localhost:1", "--schema-registry-url", "http://localhost:1"
    };

    @Test
    void shouldRequireTheRunForStatus() {
        final CliRunner.Result r = rwml("status");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("Missing required option: '--run=NAME'");
    }

    @Test
    void shouldRejectNegativeSampleSecondsBeforeConnecting() {
        final CliRunner.Result r =
                rwml(concat(new String[] {"status", "--run", "r", "--sample-seconds", "-1"}));

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--sample-seconds must be 0 or more, was -1");
    }

    @Test
    void shouldRejectGroupOverridesOfUnknownStages() {
        final CliRunner.Result r =
                rwml(concat(new String[] {"status", "--run", "r", "--group", "predictor=x"}));

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err())
                .contains("--group names unknown stages [predictor]")
                .contains("prediction, reward or trainer");
    }

    @Test
    void shouldRequireTheRunForEveryDlqSubcommandBeforeConnecting() {
        for (final String[] sub :
                new String[][] {{"list"}, {"show", "1"}, {"resend", "--offset", "1"}}) {
            final CliRunner.Result r = rwml(concat(new String[] {"dlq"}, sub));

            assertThat(r.code()).as(sub[0]).isEqualTo(2);
            assertThat(r.err()).as(sub[0]).contains("Missing required option: '--run=NAME'");
        }
    }

    @Test
    void shouldAskForOffsetOrAllWhenResending() {
        final CliRunner.Result r = rwml(concat(new String[] {"dlq", "--run", "r"}, "resend"));

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--offset=O").contains("--all");
    }

    @Test
    void shouldRefuseOffsetTogetherWithAll() {
        final CliRunner.Result r =
                rwml(
                        concat(
                                new String[] {"dlq", "--run", "r"},
                                "resend",
                                "--offset",
                                "3",
                                "--all"));

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("mutually exclusive");
    }

    @Test
    void shouldDescribeStatusAndDlqInHelp() {
        assertThat(rwml("status", "--help").out())
                .contains("--web")
                .contains("--json")
                .contains("--port");
        assertThat(rwml("dlq", "--help").out())
                .contains("list")
                .contains("show")
                .contains("resend");
    }

    private static String[] concat(final String[] head, final String... tail) {
        final String[] all = new String[head.length + CLUSTER.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(CLUSTER, 0, all, head.length, CLUSTER.length);
        System.arraycopy(tail, 0, all, head.length + CLUSTER.length, tail.length);
        return all;
    }
}
