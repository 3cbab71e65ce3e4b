package dev.rwml.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Runs the probe in a fresh JVM without the trust flag the build passes to test JVMs. */
class TrustedEventsTest {

    @Test
    void shouldDecodeGeneratedEnumsThroughSerdeWherePlainAvroRefusesWithoutJvmFlag()
            throws Exception {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process =
                new ProcessBuilder(
                                List.of(
                                        java,
                                        "-Xmx256m",
                                        "-XX:TieredStopAtLevel=1",
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        TrustedEventsProbe.class.getName()))
                        .redirectErrorStream(true)
                        .start();
        final String output =
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output)
                .contains("plain Avro refused")
                .contains("dev.rwml.events")
                .contains("serde decoded the event");
    }
}
