package dev.rwml.ops.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.ops.cli.doctor.HostChecks.PortUse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostChecksTest {

    @TempDir Path dir;

    @Test
    void shouldNameThePortInUseAndWhatToDo() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(0));
            final int port = taken.getLocalPort();
            final Finding finding =
                    HostChecks.ports(
                            List.of(new PortUse(port, "rwml serve", "pass --port to rwml serve")));
            assertThat(finding.ok()).isFalse();
            assertThat(finding.message())
                    .contains(port + " (rwml serve) is in use")
                    .contains("sport = :" + port)
                    .contains("pass --port to rwml serve");
        }
    }

    @Test
    void shouldListFreePortsAsOk() throws IOException {
        final int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        final Finding finding =
                HostChecks.ports(List.of(new PortUse(port, "rwml status --web", "unused")));
        assertThat(finding.ok()).isTrue();
        assertThat(finding.message()).contains(port + " (rwml status --web)");
    }

    @Test
    void shouldMeasureTheDiskOfADataDirectoryNotMadeYet() throws IOException {
        final Path notYet = dir.resolve("not/made/yet");
        assertThat(HostChecks.disk(notYet, 0).ok()).isTrue();
        final Finding full = HostChecks.disk(notYet, Long.MAX_VALUE);
        assertThat(full.ok()).isFalse();
        assertThat(full.message()).contains(notYet.toString()).contains("--data-dir");
    }

    @Test
    void shouldAskForMoreHeapBelowTheMinimum() {
        final Finding small = HostChecks.java(Runtime.version(), 512L << 20, true);
        assertThat(small.ok()).isFalse();
        assertThat(small.message()).contains("512 MiB").contains("JAVA_OPTS=-Xmx");
        assertThat(HostChecks.java(Runtime.version(), 8L << 30, true).message())
                .contains("Java " + Runtime.version())
                .contains("8.0 GiB")
                .contains("CPU decode kernel on");
    }

    @Test
    void shouldSayHowToTurnTheCpuDecodeKernelOn() {
        final Finding off = HostChecks.java(Runtime.version(), 8L << 30, false);
        assertThat(off.ok()).isTrue();
        assertThat(off.message())
                .contains("CPU decode kernel off")
                .contains("JAVA_OPTS=\"--add-modules jdk.incubator.vector\"");
    }
}
