package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C (SIGTERM here: a background JVM ignores SIGINT) of {@code ./rwml demo} while its stages
 * run: the demo stops its stages before the cluster they use and returns promptly, leaving no
 * process behind.
 */
@Tag("system")
class DemoInterruptIT {

    private static final Duration PROMPT = Duration.ofSeconds(20);

    @TempDir Path tmp;

    @Test
    void shouldStopStagesThenClusterAndExitPromptlyOnSigterm() throws Exception {
        final Path out = tmp.resolve("stdout.log");
        final Path err = tmp.resolve("stderr.log");
        final Process demo =
                new ProcessBuilder(
                                Path.of("..", "..", "rwml").toString(),
                                "demo",
                                "--quick",
                                "--dir",
                                tmp.resolve("demo").toString())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        try {
            await().atMost(Duration.ofMinutes(6))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(
                            () -> {
                                assertThat(demo.isAlive())
                                        .as("the demo exited early: %s", tail(out, err))
                                        .isTrue();
                                // A progress line after the stages started: they are running.
                                final String text = Files.readString(out);
                                final int started = text.indexOf("Starting the prediction");
                                return started >= 0 && text.indexOf("version", started) > 0;
                            });
            final List<ProcessHandle> children = demo.descendants().toList();
            assertThat(children).as("the registry child process").isNotEmpty();

            final long signalled = System.nanoTime();
            assertThat(demo.toHandle().destroy()).isTrue();
            final boolean exited = demo.waitFor(PROMPT.toSeconds() + 10, TimeUnit.SECONDS);
            final Duration took = Duration.ofNanos(System.nanoTime() - signalled);

            assertThat(exited)
                    .as("the demo still runs 30 s after SIGTERM: %s", tail(out, err))
                    .isTrue();
            assertThat(took).as("time from SIGTERM to exit").isLessThan(PROMPT);
            assertThat(Files.readString(out))
                    .contains("Stopping the stages (interrupted (SIGTERM))");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
        }
    }

    private static String tail(final Path out, final Path err) throws Exception {
        final String o = Files.readString(out);
        final String e = Files.readString(err);
        return "\nstdout: ..."
                + o.substring(Math.max(0, o.length() - 2000))
                + "\nstderr: ..."
                + e.substring(Math.max(0, e.length() - 2000));
    }
}
