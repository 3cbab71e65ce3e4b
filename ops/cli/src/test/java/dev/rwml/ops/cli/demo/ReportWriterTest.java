package dev.rwml.ops.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.VersionScore;
import dev.rwml.pipeline.local.RunMonitor;
import dev.rwml.pipeline.watch.RunProgress.PassRate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's report files, drawn by the shared chart renderer. */
class ReportWriterTest {

    @Test
    void shouldWriteEveryFileWithChartsInlineAndAxesWithUnits(@TempDir final Path dir)
            throws Exception {
        final ReportWriter.Report report =
                new ReportWriter.Report(
                        "demo",
                        List.of("Base model lineage: partition 0 offsets [0, 829)"),
                        Map.of(),
                        Map.of(
                                0L, new PassRate(10, 2.0, 8, 2, Instant.EPOCH),
                                1L, new PassRate(10, 3.0, 8, 2, Instant.EPOCH)),
                        List.of(
                                new RunMonitor.ThroughputSample(1, 4, 2, 0, 3),
                                new RunMonitor.ThroughputSample(2, 8, 6, 4, 2)),
                        List.of(
                                new VersionScore(0, 0.15, 0.6, 192),
                                new VersionScore(
                                        3,
                                        0.25,
                                        0.65,
                                        192,
                                        new dev.rwml.evaluation.Interval(0.25, 0.2, 0.3))),
                        Optional.empty());
        ReportWriter.write(report, dir);
        for (final String file : ReportWriter.FILES) {
            assertThat(dir.resolve(file)).as(file).exists();
        }
        final String html = Files.readString(dir.resolve("index.html"));
        assertThat(html)
                .contains("<svg", "RWML versions", "base (version 0)")
                .contains("pass rate (fraction of samples)", "groups per second")
                .contains("time since the stages started (s)", "heldout.png")
                .contains("0.250 [0.200, 0.300]", "RWML versions (95% interval)")
                .doesNotContain("<img");
        assertThat(Files.readAllLines(dir.resolve("heldout.csv")))
                .contains("3,0.2500,0.2000,0.3000,0.6500,192");
    }
}
