package dev.rwml.ops.cli.doctor;

import dev.rwml.runtime.errors.AccessErrors;
import dev.rwml.runtime.errors.ErrorLine;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.registry.RegistryUnauthorizedException;
import dev.rwml.schemas.registry.RegistryUnreachableException;
import dev.rwml.schemas.registry.SchemaRegistryClient;
import dev.rwml.schemas.registry.SchemaRegistryClients;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;

/** The checks of the cluster a command would use: its security settings, broker and registry. */
public final class ClusterChecks {

    /** The subject whose compatibility the registry check reads (any subject answers). */
    private static final String PROBE_SUBJECT = "rwml-doctor-value";

    private ClusterChecks() {}

    /**
     * The security settings of the client config: the protocol, and that every key or trust store
     * named exists and opens with its password; {@code source} names the file, for the fix.
     */
    public static Finding security(final Map<String, String> all, final String source) {
        final String protocol =
                all.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        final List<String> problems = new ArrayList<>();
        for (final String prefix : List.of("ssl.", RegistryConfig.SSL_PREFIX)) {
            for (final String store : List.of("truststore", "keystore")) {
                storeProblem(all, prefix + store).ifPresent(problems::add);
            }
        }
        if (protocol.startsWith("SASL") && !all.containsKey("sasl.jaas.config")) {
            problems.add(protocol + " needs sasl.jaas.config (the user and password)");
        }
        if (!problems.isEmpty()) {
            return Finding.fix("security", String.join("; ", problems) + ": fix it in " + source);
        }
        final String mechanism = all.get("sasl.mechanism");
        return Finding.ok(
                "security",
                protocol + (mechanism == null ? "" : " with " + mechanism) + " (" + source + ")");
    }

    /** Why the store named by {@code <key>.location} cannot be used, if it cannot. */
    private static Optional<String> storeProblem(
            final Map<String, String> settings, final String key) {
        final String location = settings.get(key + ".location");
        if (location == null || location.isBlank()) {
            return Optional.empty();
        }
        final Path file = Path.of(location);
        if (!Files.isReadable(file)) {
            return Optional.of(key + ".location " + file + " is missing or unreadable");
        }
        final String type = settings.getOrDefault(key + ".type", KeyStore.getDefaultType());
        if (type.equalsIgnoreCase("PEM")) {
            return Optional.empty();
        }
        final String password = settings.get(key + ".password");
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore.getInstance(type).load(in, password == null ? null : password.toCharArray());
            return Optional.empty();
        } catch (Exception e) {
            return Optional.of(
                    key
                            + ".location "
                            + file
                            + " does not open with "
                            + key
                            + ".password ("
                            + ErrorLine.of(e)
                            + ")");
        }
    }

    /**
     * Asks the broker to describe its cluster within {@code timeout}; {@code ifSilent} says what to
     * do when it does not answer (where the address came from decides it).
     */
    public static Finding broker(
            final Connection connection, final Duration timeout, final String ifSilent)
            throws InterruptedException {
        final int ms = (int) timeout.toMillis();
        final String bootstrap = connection.bootstrapServers();
        try (Admin admin =
                Admin.create(
                        connection.kafkaConfig(
                                Map.of(
                                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                                        ms,
                                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                                        ms,
                                        AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG,
                                        Math.min(ms, 10_000),
                                        AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG,
                                        1_000)))) {
            final DescribeClusterResult cluster =
                    admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms));
            final String id = cluster.clusterId().get(ms, TimeUnit.MILLISECONDS);
            final int brokers = cluster.nodes().get(ms, TimeUnit.MILLISECONDS).size();
            return Finding.ok(
                    "broker",
                    bootstrap + " answers: cluster " + id + ", " + brokers + " broker(s)");
        } catch (TimeoutException e) {
            return silent(bootstrap, timeout, ifSilent);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                return silent(bootstrap, timeout, ifSilent);
            }
            return Finding.fix(
                    "broker",
                    AccessErrors.explain(e.getCause(), connection)
                            .orElse(bootstrap + ": " + ErrorLine.of(e.getCause())));
        }
    }

    private static Finding silent(
            final String bootstrap, final Duration timeout, final String ifSilent) {
        return Finding.fix(
                "broker",
                bootstrap + " did not answer within " + timeout.toSeconds() + " s: " + ifSilent);
    }

    /**
     * Reads a compatibility level from the registry with one request bounded by {@code timeout};
     * {@code ifSilent} says what to do when it does not answer.
     */
    public static Finding registry(
            final Connection connection, final Duration timeout, final String ifSilent) {
        final Map<String, Object> config = connection.registryConfig();
        config.put(RegistryConfig.MAX_ATTEMPTS, 1);
        config.put(RegistryConfig.REQUEST_TIMEOUT_MS, timeout.toMillis());
        final String url = connection.schemaRegistryUrl();
        try (SchemaRegistryClient client = SchemaRegistryClients.create(config)) {
            return Finding.ok(
                    "registry",
                    url + " answers: compatibility " + client.compatibility(PROBE_SUBJECT).name());
        } catch (RegistryUnreachableException e) {
            return Finding.fix(
                    "registry",
                    url
                            + " did not answer ("
                            + ErrorLine.of(e.getCause() == null ? e : e.getCause())
                            + "): "
                            + ifSilent);
        } catch (RegistryUnauthorizedException e) {
            return Finding.fix(
                    "registry",
                    url
                            + " refused the login ("
                            + ErrorLine.of(e)
                            + "): check basic.auth.user.info in the client config");
        }
    }
}
