package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.cli.RwmlProcesses.Cluster;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ./rwml doctor} as a user runs it: with no cluster, then beside a running {@code up}. */
class DoctorIT {

    private static final List<String> CHECKS =
            List.of(
                    "java",
                    "disk",
                    "ports",
                    "security",
                    "broker",
                    "registry",
                    "pytorch",
                    "embedding");

    /** Every check's limit together, with room for the JVM to start on busy cores. */
    private static final Duration DOCTOR = Duration.ofMinutes(3);

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("doctor-it");

    @Test
    void shouldPrintEveryCheckAndFailWithWhatToDoWithoutACluster() throws Exception {
        final Child doctor = rwml.start("doctor", "doctor --timeout 2");
        RwmlProcesses.assertExits(doctor, DOCTOR, 1);
        final Map<String, String> lines = lines(doctor);
        assertThat(lines.keySet()).as(doctor.tails()).containsExactlyElementsOf(CHECKS);
        assertThat(lines.get("broker"))
                .startsWith("broker")
                .contains(" fix ")
                .contains("start one with `./rwml up`");
        assertThat(lines.get("java")).contains(" ok ");
        assertThat(lines.get("pytorch")).contains(" ok ").contains("PyTorch");
        assertThat(lines.get("embedding")).contains(" ok ");
    }

    @Test
    void shouldFindTheClusterThatUpRunsInTheDataDirectory() throws Exception {
        final Cluster cluster = rwml.up("");
        final Child doctor = rwml.start("doctor", "doctor --timeout 10");
        final RwmlProcesses.Exit exit = RwmlProcesses.awaitExit(doctor, DOCTOR);
        final Map<String, String> lines = lines(doctor);
        assertThat(lines.keySet()).as(doctor.tails()).containsExactlyElementsOf(CHECKS);
        assertThat(lines.get("broker")).contains(" ok ").contains(cluster.bootstrap());
        assertThat(lines.get("registry")).contains(" ok ").contains(cluster.registry());
        // The ports of this machine are not the test's to choose: the code follows the lines.
        final boolean allOk = lines.values().stream().allMatch(l -> l.contains(" ok "));
        RwmlProcesses.assertExited(exit, allOk ? 0 : 1);
    }

    /** The lines of stdout by the check they start with. */
    private static Map<String, String> lines(final Child doctor) throws Exception {
        return Files.readAllLines(doctor.out()).stream()
                .collect(
                        Collectors.toMap(
                                l -> l.split(" ", 2)[0],
                                Function.identity(),
                                (a, b) -> a + "\n" + b,
                                LinkedHashMap::new));
    }
}
