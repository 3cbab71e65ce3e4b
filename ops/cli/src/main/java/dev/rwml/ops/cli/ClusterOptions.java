package dev.rwml.ops.cli;

import dev.rwml.runtime.settings.Connection;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine.Option;

/**
 * The cluster a command talks to, and how: the addresses from explicit options, else {@code
 * RWML_BOOTSTRAP_SERVERS} / {@code RWML_SCHEMA_REGISTRY_URL}, else the client config file, else the
 * addresses that a running {@code rwml up} wrote to {@code <data-dir>/cluster.properties}; the
 * security settings ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}, {@code
 * schema.registry.*}, {@code basic.auth.*}) from the client config file: {@code --client-config},
 * else {@code RWML_CLIENT_CONFIG}, else the one a running {@code rwml up --secure} named in its
 * cluster file (when the command talks to that cluster). Every Kafka and registry client a command
 * creates starts from {@link #connection()}.
 */
final class ClusterOptions {

    /** Written by {@code rwml up} while it runs, so other commands find its cluster. */
    static final String CLUSTER_FILE = "cluster.properties";

    static final String BOOTSTRAP_KEY = Connection.BOOTSTRAP_SERVERS;
    static final String REGISTRY_KEY = Connection.SCHEMA_REGISTRY_URL;

    /** The key of the cluster file naming a secure cluster's client settings file. */
    static final String CLIENT_CONFIG_KEY = "client.config";

    private static final String CLIENT_CONFIG_ENV = "RWML_CLIENT_CONFIG";

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT",
            description =
                    "Kafka bootstrap servers (default: $RWML_BOOTSTRAP_SERVERS, else"
                            + " --client-config, else the running `rwml up` in --data-dir).")
    private String bootstrapServers;

    @Option(
            names = "--schema-registry-url",
            paramLabel = "URL",
            description =
                    "Confluent-compatible schema registry URL (default: $RWML_SCHEMA_REGISTRY_URL,"
                            + " else --client-config, else the running `rwml up` in --data-dir).")
    private String schemaRegistryUrl;

    @Option(
            names = "--client-config",
            paramLabel = "FILE",
            description =
                    "A properties file of connection settings for every Kafka and registry client"
                            + " the command creates: security.protocol, sasl.*, ssl.*,"
                            + " client.dns.lookup, schema.registry.*, basic.auth.* (and, below"
                            + " the flags and the environment, bootstrap.servers and"
                            + " schema.registry.url). Other keys are refused. Default:"
                            + " $RWML_CLIENT_CONFIG, else the client.properties of a running"
                            + " `rwml up --secure` in --data-dir.")
    private Path clientConfig;

    @Option(
            names = "--data-dir",
            defaultValue = ".rwml",
            description = "Where `rwml up` keeps its data (default: ${DEFAULT-VALUE}).")
    private Path dataDir;

    /** Read once: every client of the command sees the same file. */
    private Map<String, String> clientSettings;

    /** The data directory of {@code rwml up} ({@code --data-dir}). */
    Path dataDir() {
        return dataDir;
    }

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
        up.keySet().retainAll(Set.of(BOOTSTRAP_KEY, REGISTRY_KEY));
        return up;
    }

    /** The settings of the client config file, or an empty map without one. */
    Map<String, String> clientSettings() {
        if (clientSettings == null) {
            final Path file = clientConfigFile();
            clientSettings = file == null ? Map.of() : readClientConfig(file);
        }
        return clientSettings;
    }

    /**
     * {@code --client-config}, else {@code RWML_CLIENT_CONFIG}, else the file a running secure
     * {@code rwml up} named, unless the command's bootstrap servers (flag or environment) are
     * another cluster's; null when none applies.
     */
    Path clientConfigFile() {
        if (clientConfig != null) {
            return clientConfig;
        }
        final String fromEnv = System.getenv(CLIENT_CONFIG_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return Path.of(fromEnv.trim());
        }
        final Map<String, String> up = readClusterFile(dataDir);
        final String named = up.get(CLIENT_CONFIG_KEY);
        if (named == null || named.isBlank()) {
            return null;
        }
        final String explicit =
                bootstrapServers != null && !bootstrapServers.isBlank()
                        ? bootstrapServers
                        : System.getenv("RWML_BOOTSTRAP_SERVERS");
        if (explicit != null && !explicit.isBlank() && !explicit.equals(up.get(BOOTSTRAP_KEY))) {
            return null;
        }
        final Path file = Path.of(named);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(
                    "the running `rwml up --secure` in "
                            + dataDir
                            + " names its client settings "
                            + file
                            + ", which is gone; restart `rwml up --secure` to write it again");
        }
        return file;
    }

    /** The client config file the command uses, for error messages; null when it uses none. */
    String clientConfigName() {
        final Path file = clientConfigFile();
        return file == null ? null : file.toString();
    }

    /** Where and how every client of the command connects, resolved as the class comment says. */
    Connection connection() {
        final Map<String, String> settings = new HashMap<>(clientSettings());
        settings.put(BOOTSTRAP_KEY, bootstrapServers());
        settings.put(REGISTRY_KEY, schemaRegistryUrl());
        return Connection.from(settings);
    }

    /** The bootstrap servers, resolved as the class comment says. */
    String bootstrapServers() {
        return resolve(bootstrapServers, "RWML_BOOTSTRAP_SERVERS", BOOTSTRAP_KEY);
    }

    /** The registry URL, resolved as the class comment says. */
    String schemaRegistryUrl() {
        return resolve(schemaRegistryUrl, "RWML_SCHEMA_REGISTRY_URL", REGISTRY_KEY);
    }

    /**
     * Where the bootstrap servers come from, for messages: {@code --bootstrap-servers}, {@code
     * $RWML_BOOTSTRAP_SERVERS}, {@code --client-config} or the cluster file of a running {@code
     * rwml up}.
     */
    Source bootstrapSource() {
        return resolved(bootstrapServers, "RWML_BOOTSTRAP_SERVERS", BOOTSTRAP_KEY).source();
    }

    /** The places a cluster address is taken from, highest first. */
    enum Source {
        FLAG,
        ENVIRONMENT,
        CLIENT_CONFIG,
        CLUSTER_FILE
    }

    private record Resolved(String value, Source source) {}

    private String resolve(final String explicit, final String envName, final String key) {
        return resolved(explicit, envName, key).value();
    }

    private Resolved resolved(final String explicit, final String envName, final String key) {
        if (explicit != null && !explicit.isBlank()) {
            return new Resolved(explicit, Source.FLAG);
        }
        final String fromEnv = System.getenv(envName);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new Resolved(fromEnv, Source.ENVIRONMENT);
        }
        final String fromFile = clientSettings().get(key);
        if (fromFile != null && !fromFile.isBlank()) {
            return new Resolved(fromFile, Source.CLIENT_CONFIG);
        }
        final String fromUp = readClusterFile(dataDir).get(key);
        if (fromUp != null) {
            return new Resolved(fromUp, Source.CLUSTER_FILE);
        }
        throw new IllegalArgumentException(
                "no cluster given: pass --"
                        + key.replace('.', '-')
                        + ", set $"
                        + envName
                        + " or "
                        + key
                        + " in --client-config, or start one with `./rwml up` (it writes "
                        + dataDir.resolve(CLUSTER_FILE)
                        + ")");
    }

    /**
     * The connection settings in a {@code --client-config} file.
     *
     * @throws IllegalArgumentException when it cannot be read or holds a key that is no connection
     *     setting (stage settings belong in the stage's {@code --config})
     */
    static Map<String, String> readClientConfig(final Path file) {
        final Map<String, String> settings = readProperties(file, "--client-config");
        final Set<String> refused = new TreeSet<>();
        settings.keySet().stream()
                .filter(k -> !Connection.isConnectionKey(k))
                .forEach(refused::add);
        if (!refused.isEmpty()) {
            final List<String> prefixes = new ArrayList<>(Connection.KAFKA_PREFIXES);
            prefixes.addAll(Connection.REGISTRY_PREFIXES);
            throw new IllegalArgumentException(
                    "--client-config "
                            + file
                            + " holds "
                            + refused
                            + ", which are no connection settings: it takes "
                            + BOOTSTRAP_KEY
                            + " and keys starting "
                            + prefixes
                            + " only; a stage's other settings go in its --config FILE");
        }
        return settings;
    }

    /** The addresses in {@code <dir>/cluster.properties}, or an empty map. */
    static Map<String, String> readClusterFile(final Path dir) {
        final Path file = dir.resolve(CLUSTER_FILE);
        if (!Files.isRegularFile(file)) {
            return Map.of();
        }
        return readProperties(file, "the cluster file");
    }

    private static Map<String, String> readProperties(final Path file, final String what) {
        final Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file, e);
        }
        final Map<String, String> out = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> out.put(k, props.getProperty(k).trim()));
        return out;
    }
}
