package dev.rwml.ops.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apicurio Registry running as a child JVM, watched by {@link ParentWatchdog} so it exits
 * with this JVM however this JVM ends.
 */
final class ApicurioRegistryProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ApicurioRegistryProcess.class);

    /** Generous: on a busy two-core machine Quarkus has been seen to need 30 s. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final Process process;
    private final int httpPort;
    private final Path logFile;
    private final ClusterSecurity security;
    private boolean closed;

    private ApicurioRegistryProcess(
            final Process process,
            final int httpPort,
            final Path logFile,
            final ClusterSecurity security) {
        this.process = process;
        this.httpPort = httpPort;
        this.logFile = logFile;
        this.security = security;
    }

    /**
     * Starts the registry on {@code httpPort} without waiting; see {@link #awaitReady()}.
     *
     * @param security when not null, the port serves HTTPS only, with the cluster's certificate
     */
    static ApicurioRegistryProcess launch(
            final Path dataDir, final int httpPort, final ClusterSecurity security)
            throws IOException {
        final ApicurioDistribution dist = ApicurioDistribution.locate();
        final Path storage = dataDir.resolve("registry").toAbsolutePath();
        Files.createDirectories(storage);
        final Path logFile = dataDir.resolve("registry.log").toAbsolutePath();
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(
                List.of(
                        "-Xmx384m",
                        "-XX:+UseSerialGC",
                        // A registry serves few requests: fast start-up beats peak throughput.
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        dist.runnerJar() + java.io.File.pathSeparator + watchdogLocation(),
                        "-Dquarkus.http.host=127.0.0.1",
                        "-Dquarkus.management.enabled=false"));
        if (security == null) {
            cmd.add("-Dquarkus.http.port=" + httpPort);
        } else {
            // Quarkus reads config/application.properties of its working directory: the store
            // password stays out of the process list.
            security.writeRegistryConfig(
                    storage.resolve("config").resolve("application.properties"), httpPort);
        }
        cmd.addAll(
                List.of(
                        // Kept under the data dir so schema ids survive a restart of the
                        // cluster together with the Kafka log that refers to them.
                        "-Dapicurio.datasource.url=jdbc:h2:file:" + storage.resolve("db"),
                        "-Dapicurio.datasource.jdbc.initial-size=2",
                        "-Dapicurio.datasource.jdbc.min-size=2",
                        // Confluent semantics: the same schema text (however formatted) gets
                        // the same id, and subjects and versions can be deleted.
                        "-Dapicurio.ccompat.use-canonical-hash=true",
                        "-Dapicurio.ccompat.legacy-id-mode.enabled=false",
                        "-Dapicurio.rest.deletion.artifact.enabled=true",
                        "-Dapicurio.rest.deletion.artifact-version.enabled=true",
                        "-Dapicurio.rest.deletion.group.enabled=true",
                        // Schemas evolve compatibly (the design's rule, Confluent's default):
                        // every subject without a rule of its own refuses an incompatible one.
                        "-Dapicurio.rules.global.compatibility=BACKWARD",
                        "-Dquarkus.log.console.color=false",
                        ParentWatchdog.class.getName(),
                        String.valueOf(ProcessHandle.current().pid()),
                        dist.mainClass()));
        final Process process =
                new ProcessBuilder(cmd)
                        .directory(storage.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                        .start();
        LOG.debug("Apicurio Registry pid {} starting on port {}", process.pid(), httpPort);
        return new ApicurioRegistryProcess(process, httpPort, logFile, security);
    }

    private static String watchdogLocation() throws IOException {
        try {
            return Path.of(
                            ParentWatchdog.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI())
                    .toString();
        } catch (java.net.URISyntaxException | NullPointerException e) {
            throw new IOException("Cannot tell where the rwml embedded-cluster classes live", e);
        }
    }

    String baseUrl() {
        return (security == null ? "http" : "https") + "://127.0.0.1:" + httpPort;
    }

    long pid() {
        return process.pid();
    }

    /** Waits for Quarkus readiness; fails early, with the log's path, if the process died. */
    void awaitReady() throws IOException {
        final HttpClient.Builder builder =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
        if (security != null) {
            builder.sslContext(trusting(security));
        }
        final HttpClient http = builder.build();
        final HttpRequest ready =
                HttpRequest.newBuilder(URI.create(baseUrl() + "/health/ready"))
                        .timeout(Duration.ofSeconds(5))
                        .build();
        final long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IOException(
                            "Apicurio Registry exited with code "
                                    + process.exitValue()
                                    + " while starting on port "
                                    + httpPort
                                    + "; see "
                                    + logFile);
                }
                try {
                    if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode()
                            == 200) {
                        return;
                    }
                } catch (IOException e) {
                    LOG.trace("Registry not answering yet: {}", e.toString());
                }
                // Poll at a modest pace; the registry takes seconds, not milliseconds.
                if (process.waitFor(250, TimeUnit.MILLISECONDS)) {
                    continue;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while waiting for Apicurio Registry", e);
        }
        throw new IOException(
                "Apicurio Registry on port "
                        + httpPort
                        + " was not ready within "
                        + READY_TIMEOUT
                        + "; see "
                        + logFile);
    }

    /** A TLS context that trusts the cluster's CA only. */
    private static SSLContext trusting(final ClusterSecurity security) throws IOException {
        try (InputStream in = Files.newInputStream(security.truststore())) {
            final KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, security.storePassword().toCharArray());
            final TrustManagerFactory trust =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot load " + security.truststore(), e);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (OutputStream stdin = process.getOutputStream()) {
            process.destroy();
            if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                LOG.warn("Apicurio Registry pid {} ignored SIGTERM; killing it", process.pid());
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.debug("Closing the registry's stdin failed", e);
        }
    }
}
