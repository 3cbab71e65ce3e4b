package dev.rwml.ops.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A single-node KRaft Kafka broker (broker and controller roles) running inside this JVM. */
final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

    /** Model chunks are up to 8 MiB; leave room for record and batch overhead. */
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaRaftServer server;
    private final int brokerPort;
    private final ClusterSecurity security;
    private boolean closed;

    private EmbeddedKafkaBroker(
            final KafkaRaftServer server, final int brokerPort, final ClusterSecurity security) {
        this.server = server;
        this.brokerPort = brokerPort;
        this.security = security;
    }

    /**
     * Formats {@code logDir} if needed and starts the broker on the given ports, returning once an
     * Admin client can describe the cluster.
     *
     * @param security the TLS, SASL and ACL setup of a secure broker, or null for a plain one
     */
    static EmbeddedKafkaBroker start(
            final Path logDir,
            final int brokerPort,
            final int controllerPort,
            final ClusterSecurity security)
            throws IOException {
        Files.createDirectories(logDir);
        final Properties props = serverProperties(logDir, brokerPort, controllerPort);
        if (security != null) {
            props.putAll(security.brokerProperties(brokerPort, controllerPort));
        }
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(logDir, props, security);
        }
        final KafkaRaftServer server =
                new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        final EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(server, brokerPort, security);
        try {
            server.startup();
            broker.awaitReady();
        } catch (RuntimeException | IOException e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** Settings of an admin client with every right: plain, or the super user's when secure. */
    Map<String, Object> adminSettings() {
        final Map<String, Object> settings = new HashMap<>();
        if (security != null) {
            settings.putAll(security.adminKafkaSettings(bootstrapServers()));
        }
        settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return settings;
    }

    private static Properties serverProperties(
            final Path logDir, final int brokerPort, final int controllerPort) {
        final Properties p = new Properties();
        p.putAll(
                Map.ofEntries(
                        Map.entry("process.roles", "broker,controller"),
                        Map.entry("node.id", "1"),
                        Map.entry(
                                "listeners",
                                "PLAINTEXT://127.0.0.1:"
                                        + brokerPort
                                        + ",CONTROLLER://127.0.0.1:"
                                        + controllerPort),
                        Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort),
                        Map.entry("controller.listener.names", "CONTROLLER"),
                        Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                        Map.entry(
                                "listener.security.protocol.map",
                                "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                        Map.entry(
                                "controller.quorum.bootstrap.servers",
                                "127.0.0.1:" + controllerPort),
                        Map.entry("log.dirs", logDir.toAbsolutePath().toString()),
                        Map.entry("num.partitions", "1"),
                        Map.entry("default.replication.factor", "1"),
                        Map.entry("offsets.topic.replication.factor", "1"),
                        Map.entry("offsets.topic.num.partitions", "5"),
                        // Exactly-once (transactions) needs the transaction log to be writable
                        // with one replica.
                        Map.entry("transaction.state.log.replication.factor", "1"),
                        Map.entry("transaction.state.log.min.isr", "1"),
                        Map.entry("transaction.state.log.num.partitions", "5"),
                        Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                        Map.entry("share.coordinator.state.topic.min.isr", "1"),
                        Map.entry("group.initial.rebalance.delay.ms", "0"),
                        Map.entry("message.max.bytes", String.valueOf(MAX_MESSAGE_BYTES)),
                        Map.entry("replica.fetch.max.bytes", String.valueOf(MAX_MESSAGE_BYTES)),
                        // The default 128 MiB is allocated up front, per broker; tests run several.
                        Map.entry(
                                "log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024)),
                        Map.entry("auto.create.topics.enable", "true")));
        return p;
    }

    private static void format(
            final Path logDir, final Properties props, final ClusterSecurity security)
            throws IOException {
        final Path config = logDir.resolveSibling(logDir.getFileName() + "-format.properties");
        try (var out = Files.newOutputStream(config)) {
            props.store(out, "written by rwml to format the KRaft log directory");
        }
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final List<String> args =
                new ArrayList<>(
                        List.of(
                                "format",
                                "--config",
                                config.toString(),
                                "--cluster-id",
                                Uuid.randomUuid().toString(),
                                "--standalone",
                                "--ignore-formatted"));
        if (security != null) {
            // The broker logs in to itself as the super user before any user could be created.
            args.addAll(List.of("--add-scram", security.superUserScram()));
        }
        final int rc;
        try (PrintStream ps = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            rc = StorageTool.execute(args.toArray(String[]::new), ps);
        } finally {
            Files.deleteIfExists(config);
        }
        final String output = captured.toString(StandardCharsets.UTF_8).strip();
        if (rc != 0) {
            throw new IllegalStateException(
                    "Formatting the Kafka log directory "
                            + logDir
                            + " failed ("
                            + output
                            + "); delete the directory and start again");
        }
        LOG.debug("Formatted {}: {}", logDir, output);
    }

    private void awaitReady() throws IOException {
        final long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        final Map<String, Object> settings = adminSettings();
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        try (Admin admin = Admin.create(settings)) {
            while (true) {
                try {
                    if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException(
                                "Kafka broker on "
                                        + bootstrapServers()
                                        + " did not become ready within "
                                        + READY_TIMEOUT,
                                e);
                    }
                    LOG.debug("Broker not ready yet: {}", e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("Interrupted while waiting for the Kafka broker", e);
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "Kafka broker on " + bootstrapServers() + " reported no live node");
                }
                // describeCluster may answer before the broker is unfenced: ask again.
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.shutdown();
        server.awaitShutdown();
        LOG.debug("Kafka broker on {} stopped", bootstrapServers());
    }
}
