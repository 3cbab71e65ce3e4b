package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.ops.cli.live.LiveFactsText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./rwml demo --quick} twice, one after the other, as a user sees it on a terminal (under
 * {@code script}, a pseudo-terminal) and through a pipe: the live panel is redrawn in place and
 * shows every fact, with the same values as the plain lines the same run wrote to its log file; the
 * pipe gets those plain lines, with the same kinds of fact. Each time, Ctrl-C (SIGTERM here: a
 * background JVM ignores SIGINT) while the stages run stops them before the cluster they use,
 * promptly, leaving no process behind and the last facts on screen.
 */
@Tag("system")
class DemoInterruptIT {

    /** About 19 s here with one demo alone on two busy cores (mostly closing its cluster). */
    private static final Duration PROMPT = Duration.ofSeconds(30);

    /** A CSI escape sequence (cursor movement, erase), as JLine's Display writes them. */
    private static final Pattern ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z@]");

    @TempDir Path tmp;

    @Test
    void shouldShowThePanelOnATerminalWithThePlainFormsFactsThenStopPromptlyOnSigterm()
            throws Exception {
        final String rwml = Path.of("..", "..", "rwml").toAbsolutePath().normalize().toString();
        // Many versions and minutes: the demo must still run when it is interrupted.
        final String args = " demo --quick --versions 1000 --minutes 10 --dir ";
        final Demo pty =
                run(
                        "pty",
                        List.of(
                                "script",
                                "-qec",
                                "stty cols 120 rows 40; exec " + rwml + args + tmp.resolve("pty"),
                                "/dev/null"));

        // The terminal's panel was redrawn in place (cursor up).
        assertThat(pty.raw()).containsPattern("\u001B\\[\\d*A");
        final String panel = lastBlock(pty.text(), "rwml demo  ");
        // The plain lines the demo logged when it left the panel: the pipe's form, same run.
        final String logged =
                LiveFactsText.lastPlainBlock(
                        Files.readString(tmp.resolve("pty/logs/demo.log"))
                                .replaceAll("(?m)^\\S+ \\[main\\] INFO  \\S+ - ", ""),
                        "] rwml demo");
        assertThat(LiveFactsText.kinds(panel))
                .isEqualTo(LiveFactsText.kinds(logged))
                .containsExactlyInAnyOrderElementsOf(LiveFactsText.ALL);
        assertThat(LiveFactsText.values(panel))
                .isEqualTo(LiveFactsText.values(logged))
                .isNotEmpty();

        // Through a pipe: the plain lines, no escape codes, the same kinds of fact.
        final Demo pipe =
                run(
                        "pipe",
                        List.of(
                                rwml,
                                "demo",
                                "--quick",
                                "--versions",
                                "1000",
                                "--minutes",
                                "10",
                                "--dir",
                                tmp.resolve("pipe").toString()));
        assertThat(pipe.raw()).doesNotContain("\u001B");
        final String plain = LiveFactsText.lastPlainBlock(pipe.text(), "] rwml demo");
        assertThat(plain.lines()).allSatisfy(l -> assertThat(l).hasSizeLessThan(100));
        assertThat(LiveFactsText.kinds(plain)).isEqualTo(LiveFactsText.kinds(panel));
    }

    /**
     * Runs one demo until it trained a version, then SIGTERMs it: it stops promptly, says so, and
     * leaves no process behind.
     */
    private Demo run(final String name, final List<String> command) throws Exception {
        final Demo demo = Demo.start(tmp, name, command);
        try {
            await().atMost(Duration.ofMinutes(6))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(
                            () -> {
                                assertThat(demo.process().isAlive())
                                        .as("the demo exited early: %s", demo.tail())
                                        .isTrue();
                                return LiveFactsText.TRAINING.matcher(demo.text()).find();
                            });
            final List<ProcessHandle> children = demo.jvm().descendants().toList();
            assertThat(children).as("the registry child process").isNotEmpty();

            final long signalled = System.nanoTime();
            assertThat(demo.jvm().destroy()).isTrue();
            final boolean exited =
                    demo.process().waitFor(PROMPT.toSeconds() + 10, TimeUnit.SECONDS);
            final Duration took = Duration.ofNanos(System.nanoTime() - signalled);
            assertThat(exited)
                    .as("the demo still runs 30 s after SIGTERM: %s", demo.tail())
                    .isTrue();
            assertThat(took).as("time from SIGTERM to exit").isLessThan(PROMPT);
            assertThat(demo.text()).contains("Stopping the stages (interrupted (SIGTERM))");
            // The command writes what was trained so far as the report, and says where.
            assertThat(demo.text()).containsPattern("Report: .*report");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            return demo;
        } finally {
            demo.process().descendants().forEach(ProcessHandle::destroyForcibly);
            demo.process().destroyForcibly();
        }
    }

    /** From the last line holding {@code titled} before the stop line, to that line. */
    private static String lastBlock(final String text, final String titled) {
        final int stop = text.lastIndexOf("Stopping the stages");
        final String before = stop < 0 ? text : text.substring(0, stop);
        final int title = before.lastIndexOf(titled);
        assertThat(title).as("a block titled '%s' in:%n%s", titled, before).isNotNegative();
        return before.substring(before.lastIndexOf('\n', title) + 1);
    }

    /** A demo started as a child process, its stdout (and stderr) in files. */
    private record Demo(Process process, Path out, Path err) {

        static Demo start(final Path dir, final String name, final List<String> command)
                throws Exception {
            final Path out = dir.resolve(name + ".out");
            final Path err = dir.resolve(name + ".err");
            final ProcessBuilder builder =
                    new ProcessBuilder(command)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile());
            builder.environment().put("TERM", "xterm-256color");
            return new Demo(builder.start(), out, err);
        }

        /** The demo's JVM: {@code script} execs it in a child, the pipe's is the process. */
        ProcessHandle jvm() {
            return process.info().command().orElse("").endsWith("script")
                    ? process.children().findFirst().orElseThrow()
                    : process.toHandle();
        }

        String raw() throws Exception {
            return Files.readString(out, StandardCharsets.UTF_8);
        }

        /** The output as text: escape sequences removed, line ends normalised. */
        String text() throws Exception {
            return ESCAPE.matcher(raw()).replaceAll("").replace("\r", "");
        }

        String tail() throws Exception {
            final String o = text();
            final String e = Files.readString(err);
            return "\nstdout: ..."
                    + o.substring(Math.max(0, o.length() - 2000))
                    + "\nstderr: ..."
                    + e.substring(Math.max(0, e.length() - 2000));
        }
    }
}
