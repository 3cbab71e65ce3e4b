package dev.rwml.env;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Same seed, same transitions, also in another process: collections whose iteration order is salted
 * per JVM ({@code Map.of}, {@code Set.copyOf}, hash sets of enums) must not reach generation, so
 * two fresh JVMs and this one compute the same digest.
 */
class CrossJvmReproducibilityTest {

    private static final long CHILD_LIMIT_MINUTES = 3;

    @Test
    void shouldGenerateIdenticalEpisodesWhenRunInSeparateJvms() throws Exception {
        final String here = GenerationDigest.compute();

        final String first = digestInChildJvm();
        final String second = digestInChildJvm();

        assertThat(first).as("first child JVM vs second").isEqualTo(second);
        assertThat(first).as("child JVM vs the test JVM").isEqualTo(here);
    }

    private static String digestInChildJvm() throws IOException, InterruptedException {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child =
                new ProcessBuilder(
                                List.of(
                                        java,
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        GenerationDigest.class.getName()))
                        .redirectErrorStream(true)
                        .start();
        final byte[] out = child.getInputStream().readAllBytes();
        assertThat(child.waitFor(CHILD_LIMIT_MINUTES, TimeUnit.MINUTES))
                .as("child JVM finished")
                .isTrue();
        final String text = new String(out, StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as("child JVM exit code; output:%n%s", text).isZero();
        final List<String> lines = text.strip().lines().toList();
        return lines.get(lines.size() - 1);
    }
}
