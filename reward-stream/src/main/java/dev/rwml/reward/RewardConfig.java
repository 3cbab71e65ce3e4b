package dev.rwml.reward;

import dev.rwml.reward.group.AdvantageMode;
import dev.rwml.reward.group.SubsamplePolicy;
import dev.rwml.reward.score.RewardSpecTable;
import dev.rwml.schemas.topics.RunName;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The reward stage's settings, validated at start-up: defaults, then a properties file, then {@code
 * RWML_REWARD_*} environment variables (the key upper-cased, dots as underscores, e.g. {@code
 * RWML_REWARD_JOIN_WINDOW=PT10M}).
 *
 * @param run the run whose rewards topic is written ({@code rwml.<run>.rewards})
 * @param sourceRun the run whose predictions are read; the run itself, or another one to rescore
 * @param bootstrapServers Kafka's bootstrap servers
 * @param schemaRegistryUrl a Confluent-API registry ({@code http(s)://...} or {@code mock://...})
 * @param envs the environments whose transitions are joined; empty for all
 * @param rewardSpecs the reward spec of each environment and next-state kind
 * @param embedding the embedding model and its cache
 * @param advantageMode GRPO or Dr. GRPO
 * @param advantageEpsilon added to the std in GRPO advantages
 * @param subsample too-easy subsampling
 * @param joinWindow how far apart a prediction and its transition may be in time
 * @param joinGrace how long out-of-order records are still accepted after the window
 * @param maxTextChars longer states are rejected to the dead-letter topic
 * @param streamThreads Kafka Streams threads
 * @param stateDir Kafka Streams state directory; blank for its default
 * @param streamsOverrides further Kafka Streams settings (keys prefixed {@code streams.} in files)
 */
public record RewardConfig(
        String run,
        String sourceRun,
        String bootstrapServers,
        String schemaRegistryUrl,
        Set<String> envs,
        RewardSpecTable rewardSpecs,
        EmbeddingSettings embedding,
        AdvantageMode advantageMode,
        double advantageEpsilon,
        SubsamplePolicy subsample,
        Duration joinWindow,
        Duration joinGrace,
        int maxTextChars,
        int streamThreads,
        String stateDir,
        Map<String, String> streamsOverrides) {

    /** Prefix of the environment variables that override settings. */
    public static final String ENV_PREFIX = "RWML_REWARD_";

    /** Prefix of file keys passed to Kafka Streams as they are. */
    public static final String STREAMS_PREFIX = "streams.";

    /** The keys a file or the environment may set. */
    public static final Set<String> KEYS =
            Set.of(
                    "run",
                    "source.run",
                    "bootstrap.servers",
                    "schema.registry.url",
                    "envs",
                    "reward.spec",
                    "embedding.provider",
                    "embedding.url",
                    "embedding.model",
                    "embedding.api.key.env",
                    "embedding.timeout",
                    "embedding.cache.size",
                    "advantage",
                    "advantage.epsilon",
                    "easy.keep.probability",
                    "hard.keep",
                    "subsample.seed",
                    "join.window",
                    "join.grace",
                    "max.text.chars",
                    "stream.threads",
                    "state.dir");

    /** Validates every setting with a message that names the key to fix. */
    public RewardConfig {
        RunName.of(run);
        RunName.of(sourceRun);
        require(bootstrapServers, "bootstrap.servers");
        require(schemaRegistryUrl, "schema.registry.url");
        envs = Set.copyOf(envs);
        Objects.requireNonNull(rewardSpecs, "rewardSpecs");
        Objects.requireNonNull(embedding, "embedding");
        Objects.requireNonNull(advantageMode, "advantageMode");
        Objects.requireNonNull(subsample, "subsample");
        if (!(advantageEpsilon > 0)) {
            throw new IllegalArgumentException(
                    "advantage.epsilon must be > 0, got " + advantageEpsilon);
        }
        if (joinWindow.isNegative() || joinWindow.isZero()) {
            throw new IllegalArgumentException("join.window must be positive, got " + joinWindow);
        }
        if (joinGrace.isNegative()) {
            throw new IllegalArgumentException("join.grace must be >= 0, got " + joinGrace);
        }
        if (maxTextChars < 1) {
            throw new IllegalArgumentException("max.text.chars must be >= 1, got " + maxTextChars);
        }
        if (streamThreads < 1) {
            throw new IllegalArgumentException("stream.threads must be >= 1, got " + streamThreads);
        }
        stateDir = stateDir == null ? "" : stateDir;
        streamsOverrides = Map.copyOf(streamsOverrides);
    }

    private static void require(final String value, final String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    key + " is required: set it in the config file or " + envName(key));
        }
    }

    /** The defaults of a run: the paper's reward specs and subsampling, MiniLM, a 30 min window. */
    public static RewardConfig defaults(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        return new RewardConfig(
                run,
                run,
                bootstrapServers,
                schemaRegistryUrl,
                Set.of(),
                RewardSpecTable.paperDefaults(),
                EmbeddingSettings.defaults(),
                AdvantageMode.GRPO,
                1e-6,
                SubsamplePolicy.paperDefaults(),
                Duration.ofMinutes(30),
                Duration.ofMinutes(5),
                16_384,
                1,
                "",
                Map.of());
    }

    /** The Kafka Streams application id: one per run, so a new run reads from the start. */
    public String applicationId() {
        return "rwml-" + run + "-reward";
    }

    /** Whether this stage rescores another run's predictions. */
    public boolean isRescore() {
        return !sourceRun.equals(run);
    }

    /** Whether transitions of this environment are joined. */
    public boolean usesEnv(final String env) {
        return envs.isEmpty() || envs.contains(env);
    }

    /** A copy that rescores {@code fromRun}'s predictions with other specs into this run. */
    public RewardConfig rescoring(final String fromRun, final RewardSpecTable specs) {
        return new RewardConfig(
                run,
                fromRun,
                bootstrapServers,
                schemaRegistryUrl,
                envs,
                specs,
                embedding,
                advantageMode,
                advantageEpsilon,
                subsample,
                joinWindow,
                joinGrace,
                maxTextChars,
                streamThreads,
                stateDir,
                streamsOverrides);
    }

    /** A copy with further Kafka Streams settings. */
    public RewardConfig withStreamsOverrides(final Map<String, String> overrides) {
        final Map<String, String> all = new HashMap<>(streamsOverrides);
        all.putAll(overrides);
        return new RewardConfig(
                run,
                sourceRun,
                bootstrapServers,
                schemaRegistryUrl,
                envs,
                rewardSpecs,
                embedding,
                advantageMode,
                advantageEpsilon,
                subsample,
                joinWindow,
                joinGrace,
                maxTextChars,
                streamThreads,
                stateDir,
                all);
    }

    /** Reads a properties file (may be null) and then the environment over the defaults. */
    public static RewardConfig load(final Path file, final Map<String, String> environment) {
        return load(file, environment, Map.of());
    }

    /**
     * Layers the defaults, the properties file (may be null), the environment and explicit
     * overrides (the command line's), then validates.
     */
    public static RewardConfig load(
            final Path file,
            final Map<String, String> environment,
            final Map<String, String> overrides) {
        final Map<String, String> settings = new HashMap<>();
        if (file != null) {
            final Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                properties.load(reader);
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "cannot read reward config file " + file + ": " + e.getMessage(), e);
            }
            properties
                    .stringPropertyNames()
                    .forEach(k -> settings.put(k, properties.getProperty(k)));
        }
        for (final String key : KEYS) {
            final String value = environment.get(envName(key));
            if (value != null) {
                settings.put(key, value);
            }
        }
        settings.putAll(overrides);
        return fromMap(settings);
    }

    /** Builds a config from {@code key=value} settings over the defaults. */
    public static RewardConfig fromMap(final Map<String, String> settings) {
        final Map<String, String> streams = new HashMap<>();
        for (final Map.Entry<String, String> entry : settings.entrySet()) {
            final String key = entry.getKey();
            if (key.startsWith(STREAMS_PREFIX)) {
                streams.put(key.substring(STREAMS_PREFIX.length()), entry.getValue());
            } else if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(
                        "unknown reward setting '"
                                + key
                                + "'; known: "
                                + KEYS.stream().sorted().collect(Collectors.joining(", "))
                                + ", or streams.* for Kafka Streams");
            }
        }
        final String run = settings.get("run");
        if (run == null || run.isBlank()) {
            throw new IllegalArgumentException(
                    "run is required: set run=<name> in the config file or " + envName("run"));
        }
        final RewardConfig d =
                defaults(
                        run.strip(),
                        settings.getOrDefault("bootstrap.servers", ""),
                        settings.getOrDefault("schema.registry.url", ""));
        final EmbeddingSettings e = d.embedding();
        final SubsamplePolicy s = d.subsample();
        return new RewardConfig(
                d.run(),
                get(settings, "source.run", d.run()),
                d.bootstrapServers(),
                d.schemaRegistryUrl(),
                settings.containsKey("envs") ? list(settings.get("envs")) : d.envs(),
                d.rewardSpecs().withOverrides(settings.get("reward.spec")),
                new EmbeddingSettings(
                        get(settings, "embedding.provider", e.provider()),
                        get(settings, "embedding.url", e.url()),
                        get(settings, "embedding.model", e.model()),
                        get(settings, "embedding.api.key.env", e.apiKeyEnv()),
                        duration(settings, "embedding.timeout", e.timeout()),
                        integer(settings, "embedding.cache.size", e.cacheSize())),
                settings.containsKey("advantage")
                        ? AdvantageMode.parse(settings.get("advantage"))
                        : d.advantageMode(),
                number(settings, "advantage.epsilon", d.advantageEpsilon()),
                new SubsamplePolicy(
                        number(settings, "easy.keep.probability", s.easyKeepProbability()),
                        bool(settings, "hard.keep", s.keepHard()),
                        longInteger(settings, "subsample.seed", s.seed())),
                duration(settings, "join.window", d.joinWindow()),
                duration(settings, "join.grace", d.joinGrace()),
                integer(settings, "max.text.chars", d.maxTextChars()),
                integer(settings, "stream.threads", d.streamThreads()),
                get(settings, "state.dir", d.stateDir()),
                streams);
    }

    /**
     * The environment variable of a key: {@code join.window} -> {@code RWML_REWARD_JOIN_WINDOW}.
     */
    public static String envName(final String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    private static String get(final Map<String, String> s, final String key, final String d) {
        final String value = s.get(key);
        return value == null ? d : value.strip();
    }

    private static Set<String> list(final String text) {
        return Arrays.stream(text.split(","))
                .map(String::strip)
                .filter(v -> !v.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static Duration duration(
            final Map<String, String> s, final String key, final Duration d) {
        return parsed(s, key, d, Duration::parse, "an ISO-8601 duration such as PT30M or PT10S");
    }

    private static int integer(final Map<String, String> s, final String key, final int d) {
        return parsed(s, key, d, Integer::parseInt, "an integer");
    }

    private static long longInteger(final Map<String, String> s, final String key, final long d) {
        return parsed(s, key, d, Long::parseLong, "an integer");
    }

    private static double number(final Map<String, String> s, final String key, final double d) {
        return parsed(s, key, d, Double::parseDouble, "a number");
    }

    private static boolean bool(final Map<String, String> s, final String key, final boolean d) {
        return parsed(
                s,
                key,
                d,
                v ->
                        switch (v.toLowerCase(Locale.ROOT)) {
                            case "true" -> true;
                            case "false" -> false;
                            default -> throw new IllegalArgumentException(v);
                        },
                "true or false");
    }

    /**
     * The setting {@code key} parsed from its stripped text, or {@code d} when it is unset.
     *
     * @throws IllegalArgumentException naming the key, what it must be and the value, when the text
     *     does not parse
     */
    private static <T> T parsed(
            final Map<String, String> s,
            final String key,
            final T d,
            final Function<String, T> parse,
            final String expected) {
        final String value = s.get(key);
        if (value == null) {
            return d;
        }
        try {
            return parse.apply(value.strip());
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new IllegalArgumentException(
                    key + " must be " + expected + ", got '" + value + "'", e);
        }
    }
}
