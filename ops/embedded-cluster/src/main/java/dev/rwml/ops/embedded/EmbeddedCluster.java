package dev.rwml.ops.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker (KRaft, in this JVM) and a real Apicurio schema registry (child process),
 * both on free local ports, keeping their data under one directory.
 *
 * <p>Restarting on the same directory keeps topics and schemas, and reuses the ports recorded in
 * {@code ports.properties} there. Closing stops both; a shutdown hook does it when the JVM exits,
 * and the registry also exits if this JVM is killed outright.
 *
 * <p>{@link #startSecure} starts it with TLS, SCRAM logins and ACLs instead (see {@link
 * ClusterSecurity}); a directory keeps the kind it was first started with.
 */
public final class EmbeddedCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);

    private static final String PORTS_FILE = "ports.properties";
    private static final int ATTEMPTS = 3;
    private static final String REGISTRY_API = "/apis/ccompat/v7";

    private final Path dataDir;
    private final EmbeddedKafkaBroker broker;
    private final ApicurioRegistryProcess registry;
    private final ClusterSecurity security;
    private final Thread shutdownHook;
    private boolean closed;

    private EmbeddedCluster(
            final Path dataDir,
            final EmbeddedKafkaBroker broker,
            final ApicurioRegistryProcess registry,
            final ClusterSecurity security) {
        this.dataDir = dataDir;
        this.broker = broker;
        this.registry = registry;
        this.security = security;
        this.shutdownHook = new Thread(this::stop, "rwml-embedded-cluster-shutdown");
    }

    /**
     * Starts a broker and a registry with their data under {@code dataDir} (created if missing) and
     * returns once both answer.
     *
     * @throws UncheckedIOException if either cannot start; the message says where its log is
     */
    public static EmbeddedCluster start(final Path dataDir) {
        return start(dataDir, false);
    }

    /**
     * Starts a secure broker and registry under {@code dataDir}: a SASL_SSL listener
     * (SCRAM-SHA-512) with ACLs enforced, the registry on HTTPS only, and {@code
     * secure/client.properties} written for user {@value ClusterSecurity#CLIENT_USER}; certificates
     * and passwords are made on the first start and reused after.
     *
     * @throws UncheckedIOException if either cannot start; the message says where its log is
     * @throws IllegalStateException if {@code dataDir} holds a cluster first started plain
     */
    public static EmbeddedCluster startSecure(final Path dataDir) {
        return start(dataDir, true);
    }

    private static EmbeddedCluster start(final Path dataDir, final boolean secure) {
        try {
            return startChecked(dataDir.toAbsolutePath(), secure);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Could not start the embedded Kafka cluster under " + dataDir, e);
        }
    }

    private static EmbeddedCluster startChecked(final Path dataDir, final boolean secure)
            throws IOException {
        Files.createDirectories(dataDir);
        final Path kafkaDir = dataDir.resolve("kafka");
        final Path portsFile = dataDir.resolve(PORTS_FILE);
        Ports ports = Ports.load(portsFile);
        final boolean formatted = Files.exists(kafkaDir.resolve("meta.properties"));
        requireSameKind(dataDir, formatted && ports != null, secure);
        final ClusterSecurity security = secure ? ClusterSecurity.prepare(dataDir) : null;
        if (formatted && ports == null) {
            // Ports are recorded as soon as a broker first runs here, so this log never served.
            Directories.deleteRecursively(kafkaDir);
        }
        final boolean reuse = formatted && ports != null;
        if (!reuse) {
            ports = Ports.allocate();
        }
        final long started = System.nanoTime();
        ApicurioRegistryProcess registry =
                ApicurioRegistryProcess.launch(dataDir, ports.registry, security);
        EmbeddedKafkaBroker broker = null;
        try {
            for (int attempt = 1; broker == null; attempt++) {
                try {
                    broker =
                            EmbeddedKafkaBroker.start(
                                    kafkaDir, ports.kafka, ports.controller, security);
                } catch (IOException | RuntimeException e) {
                    // A reused log records the controller's address, so its ports cannot move.
                    if (reuse || attempt == ATTEMPTS) {
                        throw e;
                    }
                    LOG.warn(
                            "Kafka broker failed to start ({}); retrying on other ports",
                            e.toString());
                    Directories.deleteRecursively(kafkaDir);
                    final List<Integer> fresh = Ports.freePorts(2);
                    ports = new Ports(fresh.get(0), fresh.get(1), ports.registry);
                }
            }
            ports.store(portsFile);
            for (int attempt = 1; ; attempt++) {
                try {
                    registry.awaitReady();
                    break;
                } catch (IOException e) {
                    registry.close();
                    if (attempt == ATTEMPTS) {
                        throw e;
                    }
                    // Most likely another process took the port between allocation and bind.
                    LOG.warn(
                            "Registry failed to start ({}); retrying on another port",
                            e.getMessage());
                    ports = ports.withRegistry(Ports.freePorts(1).get(0));
                    registry = ApicurioRegistryProcess.launch(dataDir, ports.registry, security);
                }
            }
            ports.store(portsFile);
            if (security != null) {
                try (Admin admin = Admin.create(broker.adminSettings())) {
                    security.grantClientUser(admin);
                }
                security.writeClientFiles(
                        broker.bootstrapServers(), registry.baseUrl() + REGISTRY_API);
            }
        } catch (IOException | RuntimeException e) {
            registry.close();
            if (broker != null) {
                broker.close();
            }
            throw e;
        }
        final EmbeddedCluster cluster = new EmbeddedCluster(dataDir, broker, registry, security);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        LOG.info(
                "Embedded cluster up in {} ms: Kafka {}, schema registry {}",
                (System.nanoTime() - started) / 1_000_000,
                cluster.bootstrapServers(),
                cluster.schemaRegistryUrl());
        return cluster;
    }

    /** A directory keeps the kind (plain or secure) its Kafka log was formatted with. */
    private static void requireSameKind(
            final Path dataDir, final boolean reused, final boolean secure) {
        final boolean wasSecure = ClusterSecurity.existsUnder(dataDir);
        if (reused && wasSecure != secure) {
            throw new IllegalStateException(
                    dataDir
                            + " holds a cluster first started "
                            + (wasSecure ? "with --secure" : "plain (without --secure)")
                            + ": start it "
                            + (wasSecure ? "with --secure again" : "without --secure again")
                            + ", or give another --data-dir for a "
                            + (secure ? "secure" : "plain")
                            + " one");
        }
    }

    /** Kafka bootstrap servers, e.g. {@code 127.0.0.1:40123}. */
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** Base URL of the Confluent-compatible schema registry API. */
    public String schemaRegistryUrl() {
        return registry.baseUrl() + REGISTRY_API;
    }

    /** Whether it was started with {@link #startSecure}. */
    public boolean secure() {
        return security != null;
    }

    /** The security files of a secure cluster; empty for a plain one. */
    public Optional<ClusterSecurity> security() {
        return Optional.ofNullable(security);
    }

    /**
     * The connection settings of the pipeline's clients: the two addresses, and for a secure
     * cluster those of user {@value ClusterSecurity#CLIENT_USER} (as in its {@code
     * client.properties}).
     */
    public Map<String, String> clientSettings() {
        if (security != null) {
            return security.clientSettings(bootstrapServers(), schemaRegistryUrl());
        }
        return Map.of(
                "bootstrap.servers",
                bootstrapServers(),
                "schema.registry.url",
                schemaRegistryUrl());
    }

    /**
     * The connection settings of a client with every right: {@link #clientSettings} on a plain
     * cluster, the super user {@value ClusterSecurity#SUPER_USER} on a secure one.
     */
    public Map<String, String> adminSettings() {
        if (security != null) {
            return security.adminSettings(bootstrapServers(), schemaRegistryUrl());
        }
        return clientSettings();
    }

    /** The directory holding the broker's log, the registry's storage and its log file. */
    public Path dataDir() {
        return dataDir;
    }

    /** Process id of the registry child JVM, for tools that watch it. */
    public long registryPid() {
        return registry.pid();
    }

    /** Stops the registry and the broker; calling it again does nothing. */
    @Override
    public void close() {
        if (stop()) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // The JVM is already shutting down; the hook is running or has run.
            }
        }
    }

    private synchronized boolean stop() {
        if (closed) {
            return false;
        }
        closed = true;
        registry.close();
        broker.close();
        LOG.info("Embedded cluster under {} stopped", dataDir);
        return true;
    }

    /**
     * The ports a cluster started under {@code dataDir} recorded and takes again when it restarts
     * there (broker, controller, registry), or an empty list when none started there yet.
     *
     * @throws IOException when the record cannot be read
     */
    public static List<Integer> recordedPorts(final Path dataDir) throws IOException {
        final Ports ports = Ports.load(dataDir.resolve(PORTS_FILE));
        return ports == null ? List.of() : List.of(ports.kafka, ports.controller, ports.registry);
    }

    /** The three local ports a cluster listens on. */
    private record Ports(int kafka, int controller, int registry) {

        static Ports allocate() throws IOException {
            final List<Integer> p = freePorts(3);
            return new Ports(p.get(0), p.get(1), p.get(2));
        }

        /** Distinct free ports: all held open together so none is handed out twice. */
        static List<Integer> freePorts(final int count) throws IOException {
            final List<ServerSocket> sockets = new ArrayList<>();
            try {
                final List<Integer> ports = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    final ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                    s.setReuseAddress(true);
                    sockets.add(s);
                    ports.add(s.getLocalPort());
                }
                return ports;
            } finally {
                for (ServerSocket s : sockets) {
                    s.close();
                }
            }
        }

        Ports withRegistry(final int port) {
            return new Ports(kafka, controller, port);
        }

        static Ports load(final Path file) throws IOException {
            if (!Files.exists(file)) {
                return null;
            }
            final Properties p = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                p.load(in);
            }
            return new Ports(
                    Integer.parseInt(p.getProperty("kafka")),
                    Integer.parseInt(p.getProperty("controller")),
                    Integer.parseInt(p.getProperty("registry")));
        }

        void store(final Path file) throws IOException {
            final Properties p = new Properties();
            p.setProperty("kafka", String.valueOf(kafka));
            p.setProperty("controller", String.valueOf(controller));
            p.setProperty("registry", String.valueOf(registry));
            try (OutputStream out = Files.newOutputStream(file)) {
                p.store(out, "ports of the embedded cluster; reused when it restarts here");
            }
        }
    }
}
