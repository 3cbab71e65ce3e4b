package dev.rwml.ops.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ChecklistTest {

    @Test
    @Timeout(30)
    void shouldReportACheckThatHangsPastItsLimitWithWhatToDo() {
        final CountDownLatch never = new CountDownLatch(1);
        final Finding finding =
                Checklist.run(
                        new Check(
                                "broker",
                                Duration.ofMillis(200),
                                "start the cluster",
                                () -> {
                                    never.await();
                                    return Finding.ok("broker", "never");
                                }));
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message()).startsWith("no answer within").endsWith("start the cluster");
    }

    @Test
    void shouldReportTheRootCauseOfACheckThatThrows() {
        final Finding finding =
                Checklist.run(
                        new Check(
                                "disk",
                                Duration.ofSeconds(10),
                                "unused",
                                () -> {
                                    throw new IllegalStateException(
                                            "Failed to create the client",
                                            new UncheckedIOException(
                                                    new java.io.IOException(
                                                            "keystore password was incorrect")));
                                }));
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message())
                .startsWith("Failed to create the client")
                .contains("keystore password was incorrect");
    }

    @Test
    void shouldPrintOneAlignedLinePerCheckAndFailWhenAnyFails() {
        final StringWriter text = new StringWriter();
        final boolean allOk =
                Checklist.run(
                        List.of(
                                check(Finding.ok("java", "Java 17")),
                                check(Finding.fix("registry", "start it")),
                                check(Finding.ok("ports", "free"))),
                        new PrintWriter(text));
        final List<String> lines = text.toString().lines().toList();
        assertThat(allOk).isFalse();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("java ").contains(" ok ").endsWith("Java 17");
        assertThat(lines.get(1)).startsWith("registry ").contains(" fix ").endsWith("start it");
        // The verdicts start in one column whatever the names' lengths.
        assertThat(
                        lines.stream()
                                .map(
                                        l ->
                                                l.indexOf(" ok ") >= 0
                                                        ? l.indexOf(" ok ")
                                                        : l.indexOf(" fix ")))
                .containsOnly(lines.get(1).indexOf(" fix "));
    }

    @Test
    void shouldPassWhenEveryCheckIsOk() {
        assertThat(
                        Checklist.run(
                                List.of(check(Finding.ok("java", "17"))),
                                new PrintWriter(new StringWriter())))
                .isTrue();
    }

    private static Check check(final Finding finding) {
        return new Check(finding.check(), Duration.ofSeconds(10), "unused", () -> finding);
    }
}
