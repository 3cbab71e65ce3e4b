package dev.rwml.ops.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * The cluster a command talks to: explicit options, else {@code RWML_BOOTSTRAP_SERVERS} / {@code
 * RWML_SCHEMA_REGISTRY_URL}, else the addresses that a running {@code rwml up} wrote to {@code
 * <data-dir>/cluster.properties}.
 */
final class ClusterOptions {

    /** Written by {@code rwml up} while it runs, so other commands find its cluster. */
    static final String CLUSTER_FILE = "cluster.properties";

    static final String BOOTSTRAP_KEY = "bootstrap.servers";
    static final String REGISTRY_KEY = "schema.registry.url";

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT",
            description =
                    "Kafka bootstrap servers (default: $RWML_BOOTSTRAP_SERVERS, else the running"
                            + " `rwml up` in --data-dir).")
    private String bootstrapServers;

    @Option(
            names = "--schema-registry-url",
            paramLabel = "URL",
            description =
                    "Confluent-compatible schema registry URL (default: $RWML_SCHEMA_REGISTRY_URL,"
                            + " else the running `rwml up` in --data-dir).")
    private String schemaRegistryUrl;

    @Option(
            names = "--data-dir",
            defaultValue = ".rwml",
            description = "Where `rwml up` keeps its data (default: ${DEFAULT-VALUE}).")
    private Path dataDir;

    /** The addresses given as flags (the highest source of a stage's settings). */
    Map<String, String> flags() {
        final Map<String, String> flags = new HashMap<>();
        if (bootstrapServers != null && !bootstrapServers.isBlank()) {
            flags.put(BOOTSTRAP_KEY, bootstrapServers);
        }
        if (schemaRegistryUrl != null && !schemaRegistryUrl.isBlank()) {
            flags.put(REGISTRY_KEY, schemaRegistryUrl);
        }
        return flags;
    }

    /** The addresses of a running {@code rwml up} (the lowest source of a stage's settings). */
    Map<String, String> runningCluster() {
        final Map<String, String> up = new HashMap<>(readClusterFile(dataDir));
        up.keySet().retainAll(java.util.Set.of(BOOTSTRAP_KEY, REGISTRY_KEY));
        return up;
    }

    /** The bootstrap servers, resolved as the class comment says. */
    String bootstrapServers() {
        return resolve(bootstrapServers, "RWML_BOOTSTRAP_SERVERS", BOOTSTRAP_KEY);
    }

    /** The registry URL, resolved as the class comment says. */
    String schemaRegistryUrl() {
        return resolve(schemaRegistryUrl, "RWML_SCHEMA_REGISTRY_URL", REGISTRY_KEY);
    }

    private String resolve(final String explicit, final String envName, final String key) {
        if (explicit != null && !explicit.isBlank()) {
            return explicit;
        }
        final String fromEnv = System.getenv(envName);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        final String fromUp = readClusterFile(dataDir).get(key);
        if (fromUp != null) {
            return fromUp;
        }
        throw new IllegalArgumentException(
                "no cluster given: pass --"
                        + key.replace('.', '-')
                        + ", set $"
                        + envName
                        + ", or start one with `./rwml up` (it writes "
                        + dataDir.resolve(CLUSTER_FILE)
                        + ")");
    }

    /** The addresses in {@code <dir>/cluster.properties}, or an empty map. */
    static Map<String, String> readClusterFile(final Path dir) {
        final Path file = dir.resolve(CLUSTER_FILE);
        if (!Files.isRegularFile(file)) {
            return Map.of();
        }
        final Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        final Map<String, String> out = new HashMap<>();
        props.stringPropertyNames().forEach(k -> out.put(k, props.getProperty(k).trim()));
        return out;
    }
}
