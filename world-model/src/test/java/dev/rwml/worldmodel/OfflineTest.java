package dev.rwml.worldmodel;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.util.Utils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the world model runs offline in a fresh JVM ({@link OfflineProbe}), so the engine's start,
 * where DJL would call home, happens under watch whatever the other tests of this JVM did before.
 */
class OfflineTest {

    @Test
    void shouldStartTheEngineSampleAndTrainInAFreshJvmWithoutAnyConnectionOrDownload(
            @TempDir final Path dir) throws IOException, InterruptedException {
        assertThat(Utils.isOfflineMode()).as("-Dai.djl.offline=true from the build").isTrue();
        final Path cache = Files.createDirectories(dir.resolve("djl-cache"));
        final Path report = dir.resolve("attempts.txt");
        final Path log = dir.resolve("probe.log");
        final String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> command =
                List.of(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-Dai.djl.offline=true",
                        "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=dev.rwml.events",
                        // a fresh DJL cache shows any download; libtorch stays where it is
                        "-DDJL_CACHE_DIR=" + cache,
                        "-DENGINE_CACHE_DIR=" + Utils.getEngineCacheDir(),
                        OfflineProbe.class.getName(),
                        report.toString());
        final Process probe =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        // a bound for a hung child, not a speed assertion
        if (!probe.waitFor(5, TimeUnit.MINUTES)) {
            probe.destroyForcibly().waitFor();
        }
        assertThat(probe.exitValue())
                .as("probe exit; its output:%n%s", Files.readString(log))
                .isZero();
        assertThat(Files.readAllLines(report)).as("connections attempted").isEmpty();
        final List<Path> downloaded = new ArrayList<>();
        try (var files = Files.walk(cache)) {
            files.filter(Files::isRegularFile).forEach(downloaded::add);
        }
        assertThat(downloaded).as("nothing downloaded into the DJL cache").isEmpty();
    }
}
