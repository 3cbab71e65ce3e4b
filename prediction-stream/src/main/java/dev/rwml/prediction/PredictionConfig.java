package dev.rwml.prediction;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Settings of one prediction-stream run, validated when built.
 *
 * <p>{@link #load} layers four sources, each overriding the one before: the defaults below, a Java
 * properties file, environment variables ({@code RWML_PREDICTION_} plus the key in upper case with
 * dots as underscores, e.g. {@code RWML_PREDICTION_BATCH_SIZE}) and explicit overrides (the
 * command-line flags). Keys:
 *
 * <pre>
 * run                        run name (required): topics rwml.&lt;run&gt;.*
 * bootstrap.servers          Kafka bootstrap servers (required)
 * schema.registry.url        Confluent-compatible registry URL, or mock://scope (required)
 * application.id             default rwml-prediction-&lt;run&gt;
 * start.from                 earliest (default), latest, an ISO-8601 instant or epoch millis
 * group.size                 G samples per transition (8)
 * sampling.temperature       1.0
 * sampling.top.p             1.0
 * sampling.max.new.tokens    64
 * batch.size                 N transitions generated together (8)
 * batch.max.wait.ms          flush a partial batch after this long (200)
 * stream.threads             Kafka Streams threads (1)
 * model.threads              PyTorch intra-op threads (1)
 * select.envs                comma-separated env names to predict; empty = all
 * select.splits              comma-separated splits to predict; empty = all
 * prompt.max.tokens          longest prompt (512)
 * prompt.over.length         truncate-history (default) or dead-letter
 * state.dir                  Kafka Streams state directory
 * transaction.timeout.ms     producer transaction timeout; must exceed one batch's generation (300000)
 * restart.max                stream-thread restarts allowed per window before shutdown (3)
 * restart.window.ms          the window those restarts are counted in (600000)
 * stop.at                    per partition of rwml.transitions, the first offset NOT predicted,
 *                            e.g. 0:120,1:98 (empty: no end); later records are skipped, which is
 *                            how `rwml replay` reads exactly a slice of the log
 * streams.&lt;any&gt;              passed to Kafka Streams as &lt;any&gt; (security, tuning)
 * </pre>
 */
public record PredictionConfig(
        String run,
        String bootstrapServers,
        String schemaRegistryUrl,
        String applicationId,
        StartPosition startFrom,
        int groupSize,
        float temperature,
        float topP,
        int maxNewTokens,
        int batchSize,
        Duration batchMaxWait,
        int streamThreads,
        int modelThreads,
        Set<String> envNames,
        Set<String> splits,
        int maxPromptTokens,
        OverLengthPolicy overLength,
        Path stateDir,
        Duration transactionTimeout,
        int maxThreadRestarts,
        Duration restartWindow,
        Map<String, String> streamsOverrides,
        Map<Integer, Long> stopAt) {

    /** Prefix of the environment variables that override file settings. */
    public static final String ENV_PREFIX = "RWML_PREDICTION_";

    private static final Pattern RUN_NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    private static final String STREAMS_PREFIX = "streams.";
    private static final List<String> KEYS =
            List.of(
                    "run",
                    "bootstrap.servers",
                    "schema.registry.url",
                    "application.id",
                    "start.from",
                    "group.size",
                    "sampling.temperature",
                    "sampling.top.p",
                    "sampling.max.new.tokens",
                    "batch.size",
                    "batch.max.wait.ms",
                    "stream.threads",
                    "model.threads",
                    "select.envs",
                    "select.splits",
                    "prompt.max.tokens",
                    "prompt.over.length",
                    "state.dir",
                    "transaction.timeout.ms",
                    "restart.max",
                    "restart.window.ms",
                    "stop.at");

    /** Validates every field and freezes the collections. */
    public PredictionConfig {
        stopAt = stopAt == null ? Map.of() : Map.copyOf(new TreeMap<>(stopAt));
        require(
                run != null && RUN_NAME.matcher(run).matches(),
                "run",
                run,
                "letters, digits, _ or -");
        require(notBlank(bootstrapServers), "bootstrap.servers", bootstrapServers, "host:port,...");
        require(
                notBlank(schemaRegistryUrl),
                "schema.registry.url",
                schemaRegistryUrl,
                "http(s)://host:port or mock://scope");
        require(notBlank(applicationId), "application.id", applicationId, "a non-blank id");
        require(startFrom != null, "start.from", null, "earliest, latest or a time");
        require(groupSize >= 1 && groupSize <= 256, "group.size", groupSize, "1..256");
        require(
                temperature >= 0f && Float.isFinite(temperature),
                "sampling.temperature",
                temperature,
                "a finite number >= 0 (0 samples greedily)");
        require(topP > 0f && topP <= 1f, "sampling.top.p", topP, "in (0, 1]");
        require(
                maxNewTokens >= 1 && maxNewTokens <= 8192,
                "sampling.max.new.tokens",
                maxNewTokens,
                "1..8192");
        require(batchSize >= 1 && batchSize <= 1024, "batch.size", batchSize, "1..1024");
        require(
                batchMaxWait != null && !batchMaxWait.isNegative() && !batchMaxWait.isZero(),
                "batch.max.wait.ms",
                batchMaxWait,
                "> 0");
        require(
                streamThreads >= 1 && streamThreads <= 64,
                "stream.threads",
                streamThreads,
                "1..64");
        require(modelThreads >= 1 && modelThreads <= 256, "model.threads", modelThreads, "1..256");
        require(
                maxPromptTokens >= 8 && maxPromptTokens <= 1_000_000,
                "prompt.max.tokens",
                maxPromptTokens,
                "8..1000000");
        require(overLength != null, "prompt.over.length", null, "truncate-history or dead-letter");
        require(stateDir != null, "state.dir", null, "a directory");
        require(
                transactionTimeout != null && transactionTimeout.toMillis() >= 1000,
                "transaction.timeout.ms",
                transactionTimeout,
                ">= 1000 and longer than one batch's generation");
        require(maxThreadRestarts >= 0, "restart.max", maxThreadRestarts, ">= 0");
        require(
                restartWindow != null && restartWindow.toMillis() > 0,
                "restart.window.ms",
                restartWindow,
                "> 0");
        envNames = Collections.unmodifiableSet(new LinkedHashSet<>(nullToEmpty(envNames)));
        splits = Collections.unmodifiableSet(new LinkedHashSet<>(nullToEmpty(splits)));
        streamsOverrides =
                Collections.unmodifiableMap(
                        new TreeMap<>(streamsOverrides == null ? Map.of() : streamsOverrides));
    }

    /** The defaults for a run on a cluster; every other setting takes its documented default. */
    public static PredictionConfig defaults(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        return fromMap(
                Map.of(
                        "run", run,
                        "bootstrap.servers", bootstrapServers,
                        "schema.registry.url", schemaRegistryUrl));
    }

    /**
     * Layers defaults, the properties file (may be null), environment variables and explicit
     * overrides, then validates.
     */
    public static PredictionConfig load(
            final Path file, final Map<String, String> env, final Map<String, String> overrides) {
        final Map<String, String> merged = new LinkedHashMap<>();
        if (file != null) {
            merged.putAll(readFile(file));
        }
        for (final String key : KEYS) {
            final String value =
                    env.get(ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_'));
            if (value != null) {
                merged.put(key, value);
            }
        }
        overrides.forEach(
                (key, value) -> {
                    if (value != null) {
                        merged.put(key, value);
                    }
                });
        return fromMap(merged);
    }

    /** Builds a config from keys as documented on this class, defaults for the missing ones. */
    public static PredictionConfig fromMap(final Map<String, String> values) {
        for (final String key : values.keySet()) {
            if (!KEYS.contains(key) && !key.startsWith(STREAMS_PREFIX)) {
                throw new IllegalArgumentException(
                        "unknown prediction setting '"
                                + key
                                + "'; known settings: "
                                + KEYS
                                + " and streams.<kafka streams property>");
            }
        }
        final Map<String, String> streams = new TreeMap<>();
        values.forEach(
                (key, value) -> {
                    if (key.startsWith(STREAMS_PREFIX)) {
                        streams.put(key.substring(STREAMS_PREFIX.length()), value);
                    }
                });
        final String run = values.get("run");
        return new PredictionConfig(
                run,
                values.get("bootstrap.servers"),
                values.get("schema.registry.url"),
                values.getOrDefault("application.id", "rwml-prediction-" + run),
                StartPosition.parse(values.getOrDefault("start.from", "earliest")),
                intValue(values, "group.size", 8),
                floatValue(values, "sampling.temperature", 1.0f),
                floatValue(values, "sampling.top.p", 1.0f),
                intValue(values, "sampling.max.new.tokens", 64),
                intValue(values, "batch.size", 8),
                Duration.ofMillis(longValue(values, "batch.max.wait.ms", 200)),
                intValue(values, "stream.threads", 1),
                intValue(values, "model.threads", 1),
                csv(values.get("select.envs")),
                csv(values.get("select.splits")),
                intValue(values, "prompt.max.tokens", 512),
                OverLengthPolicy.parse(
                        values.getOrDefault("prompt.over.length", "truncate-history")),
                Path.of(
                        values.getOrDefault(
                                "state.dir",
                                Path.of(System.getProperty("java.io.tmpdir"), "rwml-streams")
                                        .toString())),
                Duration.ofMillis(longValue(values, "transaction.timeout.ms", 300_000)),
                intValue(values, "restart.max", 3),
                Duration.ofMillis(longValue(values, "restart.window.ms", 600_000)),
                streams,
                offsets(values.get("stop.at")));
    }

    /** A copy with other settings layered on top, validated again. */
    public PredictionConfig with(final Map<String, String> overrides) {
        final Map<String, String> values = new LinkedHashMap<>(toMap());
        values.putAll(overrides);
        return fromMap(values);
    }

    /** This config as the keys {@link #fromMap} reads. */
    public Map<String, String> toMap() {
        final Map<String, String> values = new LinkedHashMap<>();
        values.put("run", run);
        values.put("bootstrap.servers", bootstrapServers);
        values.put("schema.registry.url", schemaRegistryUrl);
        values.put("application.id", applicationId);
        values.put("start.from", startFrom.toString());
        values.put("group.size", Integer.toString(groupSize));
        values.put("sampling.temperature", Float.toString(temperature));
        values.put("sampling.top.p", Float.toString(topP));
        values.put("sampling.max.new.tokens", Integer.toString(maxNewTokens));
        values.put("batch.size", Integer.toString(batchSize));
        values.put("batch.max.wait.ms", Long.toString(batchMaxWait.toMillis()));
        values.put("stream.threads", Integer.toString(streamThreads));
        values.put("model.threads", Integer.toString(modelThreads));
        values.put("select.envs", String.join(",", envNames));
        values.put("select.splits", String.join(",", splits));
        values.put("prompt.max.tokens", Integer.toString(maxPromptTokens));
        values.put(
                "prompt.over.length", overLength.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        values.put("state.dir", stateDir.toString());
        values.put("transaction.timeout.ms", Long.toString(transactionTimeout.toMillis()));
        values.put("restart.max", Integer.toString(maxThreadRestarts));
        values.put("restart.window.ms", Long.toString(restartWindow.toMillis()));
        streamsOverrides.forEach((key, value) -> values.put(STREAMS_PREFIX + key, value));
        if (!stopAt.isEmpty()) {
            final StringBuilder text = new StringBuilder();
            new TreeMap<>(stopAt)
                    .forEach(
                            (partition, offset) ->
                                    text.append(text.length() == 0 ? "" : ",")
                                            .append(partition)
                                            .append(':')
                                            .append(offset));
            values.put("stop.at", text.toString());
        }
        return values;
    }

    /**
     * Whether the record at {@code offset} of a transitions partition lies at or after {@code
     * stop.at}, so the stage skips it; partitions not named have no end.
     */
    public boolean pastStop(final int partition, final long offset) {
        final Long stop = stopAt.get(partition);
        return stop != null && offset >= stop;
    }

    private static Map<Integer, Long> offsets(final String text) {
        final Map<Integer, Long> offsets = new TreeMap<>();
        if (text == null || text.isBlank()) {
            return offsets;
        }
        for (final String item : text.split(",")) {
            final String[] parts = item.trim().split(":");
            try {
                if (parts.length != 2) {
                    throw new NumberFormatException(item);
                }
                final int partition = Integer.parseInt(parts[0].trim());
                final long offset = Long.parseLong(parts[1].trim());
                if (partition < 0 || offset < 0) {
                    throw new NumberFormatException(item);
                }
                offsets.put(partition, offset);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "prediction setting stop.at='"
                                + text
                                + "' is invalid: expected partition:offset pairs separated by"
                                + " commas, e.g. 0:120,1:98",
                        e);
            }
        }
        return offsets;
    }

    private static Map<String, String> readFile(final Path file) {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read prediction config file " + file + ": " + e.getMessage(), e);
        }
        final Map<String, String> values = new LinkedHashMap<>();
        properties
                .stringPropertyNames()
                .forEach(name -> values.put(name, properties.getProperty(name).trim()));
        return values;
    }

    private static Set<String> csv(final String text) {
        final Set<String> items = new LinkedHashSet<>();
        if (text != null) {
            Arrays.stream(text.split(","))
                    .map(String::trim)
                    .filter(item -> !item.isEmpty())
                    .forEach(items::add);
        }
        return items;
    }

    private static int intValue(final Map<String, String> values, final String key, final int def) {
        return (int) longValue(values, key, def);
    }

    private static long longValue(
            final Map<String, String> values, final String key, final long def) {
        final String text = values.get(key);
        if (text == null || text.isBlank()) {
            return def;
        }
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "prediction setting " + key + "='" + text + "' is not a whole number", e);
        }
    }

    private static float floatValue(
            final Map<String, String> values, final String key, final float def) {
        final String text = values.get(key);
        if (text == null || text.isBlank()) {
            return def;
        }
        try {
            return Float.parseFloat(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "prediction setting " + key + "='" + text + "' is not a number", e);
        }
    }

    private static <T> Set<T> nullToEmpty(final Set<T> set) {
        return set == null ? Set.of() : set;
    }

    private static boolean notBlank(final String text) {
        return text != null && !text.isBlank();
    }

    private static void require(
            final boolean ok, final String key, final Object value, final String expected) {
        if (!ok) {
            throw new IllegalArgumentException(
                    "prediction setting "
                            + key
                            + "="
                            + value
                            + " is invalid: expected "
                            + expected
                            + " (set it in the config file, as "
                            + ENV_PREFIX
                            + key.toUpperCase(Locale.ROOT).replace('.', '_')
                            + ", or on the command line)");
        }
    }
}
