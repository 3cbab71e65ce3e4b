package dev.rwml.ops.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ParentWatchdogTest {

    private static final String JAVA =
            Path.of(System.getProperty("java.home"), "bin", "java").toString();

    /** Runs {@link BlockForever} under the watchdog, watching {@code parentPid}. */
    private static Process watched(final long parentPid) throws Exception {
        return new ProcessBuilder(
                        JAVA,
                        "-Xshare:auto",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ParentWatchdog.class.getName(),
                        String.valueOf(parentPid),
                        BlockForever.class.getName())
                .redirectErrorStream(true)
                .start();
    }

    @Test
    void shouldExitWhenItsStdinIsClosed() throws Exception {
        final Process child = watched(ProcessHandle.current().pid());
        try {
            assertThat(child.isAlive()).isTrue();
            child.getOutputStream().close();
            await().atMost(Duration.ofSeconds(60)).until(() -> !child.isAlive());
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void shouldExitWhenTheWatchedProcessDiesWhileStdinStaysOpen() throws Exception {
        final Process parent = new ProcessBuilder("sleep", "600").start();
        final Process child = watched(parent.pid());
        try {
            assertThat(child.isAlive()).isTrue();
            parent.destroyForcibly().waitFor();
            await().atMost(Duration.ofSeconds(60)).until(() -> !child.isAlive());
        } finally {
            child.destroyForcibly();
            parent.destroyForcibly();
        }
    }

    @Test
    void shouldKeepRunningTheProgramWhileTheParentLives() throws Exception {
        final Process child = watched(ProcessHandle.current().pid());
        try {
            // The program prints once it runs; the watchdog must not have stopped it.
            final String line =
                    new java.io.BufferedReader(
                                    new java.io.InputStreamReader(child.getInputStream()))
                            .readLine();
            assertThat(line).isEqualTo(BlockForever.STARTED);
            assertThat(child.isAlive()).isTrue();
        } finally {
            child.destroyForcibly();
        }
    }
}
