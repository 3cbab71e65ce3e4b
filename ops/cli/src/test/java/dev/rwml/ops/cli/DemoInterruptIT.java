package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./rwml demo --quick} twice, one after the other, as a user sees it on a terminal (under
 * {@code script}, a pseudo-terminal) and as CI sees it (stdout to a file): each shows the live view
 * in its form, the panel redrawn in place or short plain lines, with the same facts; then Ctrl-C
 * (SIGTERM here: a background JVM ignores SIGINT) while the stages run stops them before the
 * cluster they use, promptly, leaving no process behind and the last facts on screen.
 */
@Tag("system")
class DemoInterruptIT {

    private static final Duration PROMPT = Duration.ofSeconds(20);

    /** The form-independent facts: each stage's row, the versions, the trainer's counts, a bar. */
    private static final Pattern STAGE =
            Pattern.compile(
                    "(prediction|reward|trainer) +[0-9.]+ groups/s,? +lag \\d+,? +dead letters \\d+");

    private static final Pattern VERSION = Pattern.compile("\\bv(\\d+) (?:[0-9.]+|-) \\(\\d+\\)");
    private static final Pattern TRAINING =
            Pattern.compile(
                    "\\d+ steps, \\d+ groups trained, \\d+ dropped stale, \\d+ without advantage");
    private static final Pattern BAR = Pattern.compile("versions +.*?(\\d+)/1000");

    /** A CSI escape sequence (cursor movement, erase), as JLine's Display writes them. */
    private static final Pattern ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z@]");

    @TempDir Path tmp;

    @Test
    void shouldShowThePanelOnATerminalAndPlainLinesOnAPipeThenStopPromptlyOnSigterm()
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

        // The terminal's panel was redrawn in place (cursor up), the pipe's lines were not.
        assertThat(pty.raw()).containsPattern("\u001B\\[\\d*A");
        assertThat(pipe.raw()).doesNotContain("\u001B");
        final String plainBlock = lastBlock(pipe.text(), "] rwml demo");
        assertThat(plainBlock.lines()).allSatisfy(l -> assertThat(l).hasSizeLessThan(100));

        // The same kinds of fact in both forms.
        final String panel = lastBlock(pty.text(), "rwml demo  ");
        assertThat(facts(panel))
                .isEqualTo(facts(plainBlock))
                .contains("stage prediction", "stage reward", "stage trainer", "training", "bar");
        // The same values where one run shows both: the panel's last frame and the plain lines
        // the demo logged when it left the panel.
        final String logged = loggedBlock(tmp.resolve("pty/logs/demo.log"));
        assertThat(values(panel)).isEqualTo(values(logged)).isNotEmpty();
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
                                return TRAINING.matcher(demo.text()).find();
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
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            return demo;
        } finally {
            demo.process().descendants().forEach(ProcessHandle::destroyForcibly);
            demo.process().destroyForcibly();
        }
    }

    /** The kinds of fact {@code text} shows. */
    private static Set<String> facts(final String text) {
        final Set<String> kinds = new LinkedHashSet<>();
        final Matcher stage = STAGE.matcher(text);
        while (stage.find()) {
            kinds.add("stage " + stage.group(1));
        }
        if (VERSION.matcher(text).find()) {
            kinds.add("versions");
        }
        if (TRAINING.matcher(text).find()) {
            kinds.add("training");
        }
        if (BAR.matcher(text).find()) {
            kinds.add("bar");
        }
        if (text.contains(" elapsed, ") && text.contains(" left")) {
            kinds.add("time");
        }
        return kinds;
    }

    /** Every fact's text with its values, in order, whatever the layout around it. */
    private static List<String> values(final String text) {
        final List<String> found = new ArrayList<>();
        for (final Pattern p : List.of(STAGE, VERSION, TRAINING)) {
            final Matcher m = p.matcher(text);
            while (m.find()) {
                found.add(m.group().replaceAll(",? +", " "));
            }
        }
        final Matcher bar = BAR.matcher(text);
        while (bar.find()) {
            found.add("versions " + bar.group(1) + "/1000");
        }
        return found;
    }

    /** The block of plain lines the demo logged last: its title and the indented lines after. */
    private static String loggedBlock(final Path log) throws Exception {
        final List<String> lines =
                Files.readString(log)
                        .replaceAll("(?m)^\\S+ \\[main\\] INFO  \\S+ - ", "")
                        .lines()
                        .toList();
        int start = lines.size() - 1;
        while (start >= 0 && !lines.get(start).endsWith("] rwml demo")) {
            start--;
        }
        assertThat(start).as("a block of plain lines in %s", log).isNotNegative();
        int end = start + 1;
        while (end < lines.size() && lines.get(end).startsWith("  ")) {
            end++;
        }
        return String.join("\n", lines.subList(start, end));
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
