package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ./rwml} launcher script a user runs first, as its own process. */
class RwmlScriptTest {

    private static final Path SCRIPT = Path.of("..", "..", "rwml").toAbsolutePath().normalize();

    @TempDir Path dir;

    @Test
    void shouldRefuseAJavaOlderThan17InOneLineNamingTheJavaItFound() throws Exception {
        final Path javaHome = fakeJava("1.8.0_402");

        final Result r = run(javaHome);

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip().lines())
                .singleElement()
                .asString()
                .contains("found Java 1.8.0_402 at " + javaHome.resolve("bin/java"))
                .contains("needs Java 17 or newer");
    }

    @Test
    void shouldRefuseJava11AsWell() throws Exception {
        assertThat(run(fakeJava("11.0.22")).err()).contains("found Java 11.0.22");
    }

    /** A JAVA_HOME whose java only prints a version, as an old JDK's would. */
    private Path fakeJava(final String version) throws IOException {
        final Path home = dir.resolve("jdk-" + version);
        final Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(
                java, "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2024-01-16' >&2\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    private record Result(int code, String err) {}

    private Result run(final Path javaHome) throws Exception {
        final ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString(), "--help");
        builder.environment().put("JAVA_HOME", javaHome.toString());
        builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        final Process process = builder.start();
        final String err =
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the script ends").isTrue();
        return new Result(process.exitValue(), err);
    }
}
