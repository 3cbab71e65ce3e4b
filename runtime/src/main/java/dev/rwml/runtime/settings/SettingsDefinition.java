package dev.rwml.runtime.settings;

import dev.rwml.runtime.StageName;
import dev.rwml.schemas.topics.RunName;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings a stage accepts, declared once with Kafka's {@link ConfigDef} (type, default,
 * validator, importance, documentation per key), and the one way they are loaded: defaults, then
 * the addresses of a running {@code rwml up}, then a properties file, then environment variables
 * ({@code RWML_<STAGE>_<KEY>}, dots as underscores; {@code RWML_BOOTSTRAP_SERVERS} and {@code
 * RWML_SCHEMA_REGISTRY_URL} for every stage), then {@code --set KEY=VALUE}, then the command's own
 * flags ({@code --run}, {@code --bootstrap-servers}, ...), each over the one before. Unknown keys
 * are refused with the known ones listed.
 */
public final class SettingsDefinition {

    /** The run. */
    public static final String RUN = "run";

    /** Stream-thread (or loop) restarts allowed per window before the stage gives up. */
    public static final String RESTART_MAX = "restart.max";

    /** The sliding window restarts are counted in. */
    public static final String RESTART_WINDOW = "restart.window";

    /** How long the Kafka cluster may be unreachable before the stage stops with an error. */
    public static final String BROKER_TIMEOUT = "broker.timeout";

    private static final ConfigDef COMMON = defineCommon(new ConfigDef());
    private static final String TABLE_HEAD = "| key | default | meaning |\n|---|---|---|\n";

    private final StageName stage;
    private final ConfigDef definition;
    private final List<String> passthroughPrefixes;

    private SettingsDefinition(
            final StageName stage,
            final ConfigDef definition,
            final List<String> passthroughPrefixes) {
        this.stage = stage;
        this.definition = definition;
        this.passthroughPrefixes = List.copyOf(passthroughPrefixes);
    }

    /**
     * The settings of {@code stage}: the keys every stage has (run, connection, restarts), then the
     * stage's own, then keys passed on under {@code passthroughPrefixes} (e.g. {@code streams.}).
     */
    public static SettingsDefinition of(
            final StageName stage,
            final Consumer<ConfigDef> stageKeys,
            final List<String> passthroughPrefixes) {
        final ConfigDef def = defineCommon(new ConfigDef());
        stageKeys.accept(def);
        return new SettingsDefinition(stage, def, passthroughPrefixes);
    }

    /** Refuses at start-up any run that {@link RunName} would refuse later, in its words. */
    private static void requireRunName(final String name, final Object value) {
        try {
            RunName.of(value == null ? null : value.toString());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(name, value, e.getMessage());
        }
    }

    /** The keys every stage has, in the order the tables show them. */
    private static ConfigDef defineCommon(final ConfigDef def) {
        return def.define(
                        RUN,
                        Type.STRING,
                        ConfigDef.NO_DEFAULT_VALUE,
                        SettingsDefinition::requireRunName,
                        Importance.HIGH,
                        "The run (training lineage): topics rwml.<run>.*, group ids"
                                + " rwml-<run>-<stage>.")
                .define(
                        Connection.BOOTSTRAP_SERVERS,
                        Type.STRING,
                        ConfigDef.NO_DEFAULT_VALUE,
                        new ConfigDef.NonEmptyString(),
                        Importance.HIGH,
                        "Kafka bootstrap servers (default: a running `rwml up`). Every"
                                + " Kafka client also gets security.protocol, sasl.*"
                                + " and ssl.* settings.")
                .define(
                        Connection.SCHEMA_REGISTRY_URL,
                        Type.STRING,
                        ConfigDef.NO_DEFAULT_VALUE,
                        new ConfigDef.NonEmptyString(),
                        Importance.HIGH,
                        "Confluent-compatible registry URL(s), comma-separated (default: a"
                                + " running `rwml up`). Every registry client also gets"
                                + " basic.auth.* and schema.registry.ssl.* settings.")
                .define(
                        RESTART_MAX,
                        Type.INT,
                        3,
                        ConfigDef.Range.atLeast(0),
                        Importance.LOW,
                        "Crashes of the processing thread restarted within"
                                + " restart.window before the stage stops (exit 1)."
                                + " Outages are waited out and never count.")
                .define(
                        RESTART_WINDOW,
                        Type.STRING,
                        "PT10M",
                        Durations.atLeast(Duration.ofSeconds(1)),
                        Importance.LOW,
                        "The sliding window restart.max is counted in.")
                .define(
                        BROKER_TIMEOUT,
                        Type.STRING,
                        "PT2M",
                        Durations.atLeast(Duration.ofSeconds(1)),
                        Importance.LOW,
                        "How long the Kafka cluster may stay unreachable before the stage"
                                + " stops (exit 1) for its supervisor to restart it.");
    }

    /** The stage these settings belong to. */
    public StageName stage() {
        return stage;
    }

    /** The definition, for tables and tools. */
    public ConfigDef definition() {
        return definition;
    }

    /** Loads the settings from every source, in the precedence the class comment gives. */
    public Settings load(final Sources sources) {
        final Map<String, String> merged = new LinkedHashMap<>(sources.clusterDefaults());
        sources.file().ifPresent(file -> merged.putAll(readFile(file)));
        merged.putAll(fromEnvironment(sources.env()));
        merged.putAll(sources.sets());
        sources.flags()
                .forEach(
                        (key, value) -> {
                            if (value != null) {
                                merged.put(key, value);
                            }
                        });
        return parse(merged);
    }

    /** The defaults of {@code run} on a plain cluster: only the required keys given. */
    public Settings defaults(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        return parse(
                Map.of(
                        RUN,
                        run,
                        Connection.BOOTSTRAP_SERVERS,
                        bootstrapServers,
                        Connection.SCHEMA_REGISTRY_URL,
                        schemaRegistryUrl));
    }

    /**
     * Parses settings given as a map of keys (defaults for the missing ones) and validates them.
     */
    public Settings parse(final Map<String, String> values) {
        final List<String> unknown = new ArrayList<>();
        for (final String key : values.keySet()) {
            if (!isKnown(key)) {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown "
                            + stage.id()
                            + " setting(s) "
                            + unknown
                            + "; known: "
                            + new TreeSet<>(definition.names())
                            + ", and keys starting "
                            + allPrefixes()
                            + " (`rwml "
                            + stage.command()
                            + " --help-config` lists them)");
        }
        try {
            return new Settings(this, definition, values);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(
                    stage.id()
                            + " setting: "
                            + e.getMessage()
                            + " (set it in --config FILE, as "
                            + stage.envPrefix()
                            + "<KEY>, or with --set KEY=VALUE)",
                    e);
        }
    }

    /** Whether {@code key} is defined or passed on. */
    private boolean isKnown(final String key) {
        return definition.names().contains(key)
                || Connection.isConnectionKey(key)
                || passthroughPrefixes.stream().anyMatch(key::startsWith);
    }

    /** The stage's own keys as a Markdown table (key, default, meaning), then its prefixes. */
    public String markdownTable() {
        final StringBuilder out = new StringBuilder(TABLE_HEAD);
        for (final ConfigDef.ConfigKey key : definition.configKeys().values()) {
            if (!COMMON.names().contains(key.name)) {
                appendRow(out, key);
            }
        }
        for (final String prefix : passthroughPrefixes) {
            out.append("| `").append(prefix).append("*` | | passed on without the prefix |\n");
        }
        return out.toString();
    }

    /** The keys every stage has, as a Markdown table, then the connection's prefixes. */
    public static String commonMarkdownTable() {
        final StringBuilder out = new StringBuilder(TABLE_HEAD);
        COMMON.configKeys().values().forEach(key -> appendRow(out, key));
        for (final String prefix : Connection.KAFKA_PREFIXES) {
            out.append("| `")
                    .append(pattern(prefix))
                    .append("` | | given to every Kafka client |\n");
        }
        for (final String prefix : Connection.REGISTRY_PREFIXES) {
            out.append("| `")
                    .append(pattern(prefix))
                    .append("` | | given to every registry client |\n");
        }
        return out.toString();
    }

    private static String pattern(final String prefix) {
        return prefix.endsWith(".") ? prefix + "*" : prefix;
    }

    private static void appendRow(final StringBuilder out, final ConfigDef.ConfigKey key) {
        final String text =
                key.hasDefault() && key.defaultValue != null
                        ? ConfigDef.convertToString(key.defaultValue, key.type)
                        : "";
        final String def =
                !key.hasDefault() ? "required" : text.isEmpty() ? "empty" : "`" + text + "`";
        out.append("| `")
                .append(key.name)
                .append("` | ")
                .append(def)
                .append(" | ")
                .append(key.documentation.replace("|", "\\|"))
                .append(" |\n");
    }

    private List<String> allPrefixes() {
        final List<String> all = new ArrayList<>(passthroughPrefixes);
        all.addAll(Connection.KAFKA_PREFIXES);
        all.addAll(Connection.REGISTRY_PREFIXES);
        return all;
    }

    private Map<String, String> fromEnvironment(final Map<String, String> env) {
        final Map<String, String> values = new LinkedHashMap<>();
        putIfSet(values, Connection.BOOTSTRAP_SERVERS, env.get("RWML_BOOTSTRAP_SERVERS"));
        putIfSet(values, Connection.SCHEMA_REGISTRY_URL, env.get("RWML_SCHEMA_REGISTRY_URL"));
        env.forEach(
                (name, value) -> {
                    if (name.startsWith(stage.envPrefix())) {
                        putIfSet(
                                values,
                                name.substring(stage.envPrefix().length())
                                        .toLowerCase(Locale.ROOT)
                                        .replace('_', '.'),
                                value);
                    }
                });
        return values;
    }

    private static void putIfSet(
            final Map<String, String> values, final String key, final String value) {
        if (value != null && !value.isBlank()) {
            values.put(key, value.trim());
        }
    }

    private Map<String, String> readFile(final Path file) {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read " + stage.id() + " config file " + file + ": " + e.getMessage(),
                    e);
        }
        final Map<String, String> values = new LinkedHashMap<>();
        properties
                .stringPropertyNames()
                .forEach(name -> values.put(name, properties.getProperty(name).trim()));
        return values;
    }

    /**
     * Where settings come from, lowest first.
     *
     * @param clusterDefaults the addresses a running {@code rwml up} wrote (may be empty)
     * @param file a properties file
     * @param env the process environment
     * @param sets {@code --set KEY=VALUE} pairs
     * @param flags the command's own flags; a null value is ignored
     */
    public record Sources(
            Map<String, String> clusterDefaults,
            Optional<Path> file,
            Map<String, String> env,
            Map<String, String> sets,
            Map<String, String> flags) {

        /** A stage's own {@code main}: an optional properties file and the process environment. */
        public static Sources fileAndEnvironment(final Optional<Path> file) {
            return new Sources(Map.of(), file, System.getenv(), Map.of(), Map.of());
        }
    }
}
