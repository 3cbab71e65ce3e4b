package dev.rwml.ops.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.evaluation.VersionScore;
import dev.rwml.ops.cli.Progress;
import dev.rwml.ops.cli.live.LiveFactsText;
import dev.rwml.pipeline.local.DemoRun;
import dev.rwml.pipeline.local.DemoSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rwml demo --quick} end to end on its own embedded cluster, as CI runs it: output that is
 * not a terminal gets the live view as short plain lines with every fact of the panel ({@code
 * DemoInterruptIT} checks the panel on a pseudo-terminal).
 */
@Tag("system")
class DemoRunIT {

    @TempDir Path dir;

    @Test
    void shouldAdvanceVersionsWriteTheReportAndLeaveNothingRunningWhenTheQuickDemoEnds()
            throws Exception {
        // Other integration tests in this JVM share a cluster that lives until the JVM exits.
        final Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        final StringWriter terminal = new StringWriter();
        final DemoRun demo =
                new DemoRun(
                        dir,
                        DemoSettings.of("tiny", true).withBudget(Duration.ofMinutes(3), 1),
                        new Progress(new PrintWriter(terminal, true), false));

        final DemoRun.Result result = demo.run();
        ReportWriter.write(result, dir.resolve("report"));

        assertThat(result.last().versionsAfterBase())
                .as("versions published after the base; output:%n%s", terminal)
                .isGreaterThanOrEqualTo(1);
        assertThat(result.last().rewardedGroups()).as("rewarded groups").isPositive();
        assertThat(result.heldOut()).extracting(VersionScore::version).contains(0L);
        assertThat(result.heldOut()).allSatisfy(s -> assertThat(s.samples()).isPositive());
        final Path report = dir.resolve("report");
        for (final String file : ReportWriter.FILES) {
            assertThat(report.resolve(file)).as(file).exists();
            assertThat(Files.size(report.resolve(file))).as(file).isPositive();
        }
        assertThat(Files.readAllLines(report.resolve("versions.csv"))).hasSizeGreaterThan(2);
        assertThat(Files.readString(report.resolve("index.html")))
                .contains("heldout.png", "pass-rate.png", "kl.png", "throughput.png")
                .containsPattern("Too-easy filter: \\d+ of \\d+ rewarded groups easy");
        assertThat(Files.readAllLines(report.resolve("pass-rate.csv")).get(0))
                .isEqualTo("behaviour_version,groups,kept,easy,mean_pass_rate");
        assertThat(terminal.toString()).contains("version 0");
        final String plain = LiveFactsText.lastPlainBlock(terminal.toString(), "] rwml demo");
        assertThat(LiveFactsText.kinds(plain))
                .containsExactlyInAnyOrderElementsOf(LiveFactsText.ALL);
        assertThat(terminal.toString()).doesNotContain("\u001B");
        assertThat(plain.lines()).allSatisfy(l -> assertThat(l).hasSizeLessThan(100));

        final Optional<ProcessHandle> registry = ProcessHandle.of(result.registryPid());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> registry.map(p -> !p.isAlive()).orElse(true));
        await().atMost(Duration.ofSeconds(60)).until(() -> leftoverThreads(before).isEmpty());
    }

    /** Threads of Kafka clients, Streams, the broker or our stages started since and alive. */
    private static List<String> leftoverThreads(final Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !before.contains(t))
                .map(Thread::getName)
                .filter(
                        n ->
                                n.contains("StreamThread")
                                        || n.startsWith("kafka-producer-network-thread")
                                        || n.startsWith("rwml-")
                                        || n.contains("data-plane-kafka")
                                        || n.startsWith("kafka-"))
                .toList();
    }
}
