package dev.rwml.ops.cli.doctor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The checks of this machine: the JVM, the data directory's disk and the ports rwml listens on. */
public final class HostChecks {

    /** Less heap than this fails the demo's model training; the tests run with 3 GiB. */
    static final long MIN_HEAP = 2L << 30;

    /** Less free disk than this under the data directory fills up within a demo or two. */
    public static final long MIN_FREE_DISK = 2L << 30;

    private HostChecks() {}

    /**
     * A port an rwml command listens on by default.
     *
     * @param port the port
     * @param user the command that listens there, e.g. {@code rwml serve}
     * @param elsewhere how to run that command on another port instead
     */
    public record PortUse(int port, String user, String elsewhere) {}

    /**
     * The Java version, the maximum heap (refused below {@link #MIN_HEAP}) and whether decode steps
     * on the CPU use the Vector API kernel.
     */
    public static Finding java(
            final Runtime.Version version, final long maxHeap, final boolean vectorKernel) {
        final String saw =
                "Java "
                        + version
                        + " ("
                        + System.getProperty("java.vendor", "unknown vendor")
                        + "), max heap "
                        + size(maxHeap)
                        + (vectorKernel
                                ? ", CPU decode kernel on"
                                : ", CPU decode kernel off (JAVA_OPTS=\"--add-modules"
                                        + " jdk.incubator.vector\" decodes Hugging Face models"
                                        + " about 2x faster)");
        if (maxHeap < MIN_HEAP) {
            return Finding.fix(
                    "java",
                    saw
                            + ", below the "
                            + size(MIN_HEAP)
                            + " a base model's training needs: run with JAVA_OPTS=-Xmx4g ./rwml ...");
        }
        return Finding.ok("java", saw);
    }

    /**
     * The usable space on the disk of {@code dataDir} (or of its nearest existing parent when it is
     * not made yet), refused below {@code minFree}.
     */
    public static Finding disk(final Path dataDir, final long minFree) throws IOException {
        Path existing = dataDir.toAbsolutePath().normalize();
        while (!Files.exists(existing) && existing.getParent() != null) {
            existing = existing.getParent();
        }
        final long free = Files.getFileStore(existing).getUsableSpace();
        final String saw = size(free) + " free for " + dataDir;
        if (free < minFree) {
            return Finding.fix(
                    "disk",
                    "only "
                            + saw
                            + " (Kafka's log and the model versions need at least "
                            + size(minFree)
                            + "): free some space or pass --data-dir on a larger disk");
        }
        return Finding.ok("disk", saw);
    }

    /**
     * Whether each port is free to listen on; one that is not names who needs it and the way out.
     */
    public static Finding ports(final List<PortUse> uses) {
        final List<String> taken = new ArrayList<>();
        for (final PortUse use : uses) {
            if (!free(use.port())) {
                taken.add(
                        use.port()
                                + " ("
                                + use.user()
                                + ") is in use: stop what listens there (`ss -ltnp 'sport = :"
                                + use.port()
                                + "'` names it) or "
                                + use.elsewhere());
            }
        }
        if (!taken.isEmpty()) {
            return Finding.fix("ports", String.join("; ", taken));
        }
        return Finding.ok(
                "ports",
                "free: "
                        + String.join(
                                ", ",
                                uses.stream().map(u -> u.port() + " (" + u.user() + ")").toList()));
    }

    /** Whether a server could listen on {@code port} on every address now. */
    static boolean free(final int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code 1.5 GiB}, {@code 300 MiB}. */
    static String size(final long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        }
        return (bytes >> 20) + " MiB";
    }
}
