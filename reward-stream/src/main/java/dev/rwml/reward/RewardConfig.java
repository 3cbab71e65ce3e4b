package dev.rwml.reward;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.Durations;
import dev.rwml.runtime.settings.Settings;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.settings.StageConfig;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.ScoringSettings;
import dev.rwml.scoring.group.AdvantageMode;
import dev.rwml.scoring.group.SubsamplePolicy;
import dev.rwml.scoring.score.RewardSpecTable;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The reward stage's settings, declared in {@link #DEFINITION} and loaded like every stage's (see
 * {@link SettingsDefinition}); {@code rwml reward --help-config} prints the table.
 *
 * @param settings the validated settings these fields were read from
 * @param sourceRun the run whose predictions are read; the run itself, or another one to rescore
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
 * @param streamsOverrides further Kafka Streams settings (keys prefixed {@code streams.})
 */
public record RewardConfig(
        Settings settings,
        String sourceRun,
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
        Map<String, String> streamsOverrides)
        implements StageConfig {

    /** Prefix of keys passed to Kafka Streams without it. */
    public static final String STREAMS_PREFIX = "streams.";

    /** Every setting of the stage. */
    public static final SettingsDefinition DEFINITION =
            SettingsDefinition.of(StageName.REWARD, RewardConfig::define, List.of(STREAMS_PREFIX));

    private static void define(final ConfigDef def) {
        ScoringSettings.define(StreamsLifecycle.defineStreamThreads(def))
                .define(
                        "source.run",
                        Type.STRING,
                        "",
                        Importance.LOW,
                        "The run whose predictions are scored; empty: the run itself (rwml rescore"
                                + " sets another).")
                .define(
                        "envs",
                        Type.LIST,
                        "",
                        Importance.LOW,
                        "Environments to score, comma-separated; empty: all.")
                .define(
                        "advantage",
                        Type.STRING,
                        "grpo",
                        (name, value) -> AdvantageMode.parse((String) value),
                        Importance.MEDIUM,
                        "grpo ((r - mean) / (std + eps)) or dr-grpo (r - mean).")
                .define(
                        "advantage.epsilon",
                        Type.DOUBLE,
                        1e-6,
                        Range.atLeast(1e-12),
                        Importance.LOW,
                        "eps added to the std in GRPO advantages.")
                .define(
                        "join.window",
                        Type.STRING,
                        "PT30M",
                        Durations.atLeast(Duration.ofMillis(1)),
                        Importance.MEDIUM,
                        "How far apart in time a prediction and its transition may be.")
                .define(
                        "join.grace",
                        Type.STRING,
                        "PT5M",
                        Durations.atLeast(Duration.ZERO),
                        Importance.LOW,
                        "How long late records are still joined after the window; predictions"
                                + " without a transition then go to the dead-letter topic.")
                .define(
                        "max.text.chars",
                        Type.INT,
                        16_384,
                        Range.atLeast(1),
                        Importance.LOW,
                        "Longer states go to the dead-letter topic.")
                .define(
                        StreamsLifecycle.STATE_DIR,
                        Type.STRING,
                        "",
                        Importance.LOW,
                        "Kafka Streams state directory; empty: Kafka Streams' default.");
    }

    /** Freezes the collections. */
    public RewardConfig {
        envs = Set.copyOf(envs);
        streamsOverrides = Map.copyOf(streamsOverrides);
    }

    /** The fields of validated settings. */
    public static RewardConfig of(final Settings s) {
        final String source = s.getString("source.run");
        return new RewardConfig(
                s,
                source.isBlank() ? s.run() : source,
                new LinkedHashSet<>(s.getList("envs")),
                ScoringSettings.rewardSpecs(s),
                ScoringSettings.embedding(s),
                AdvantageMode.parse(s.getString("advantage")),
                s.getDouble("advantage.epsilon"),
                ScoringSettings.subsample(s),
                s.getDuration("join.window"),
                s.getDuration("join.grace"),
                s.getInt("max.text.chars"),
                s.getInt(StreamsLifecycle.STREAM_THREADS),
                s.getString(StreamsLifecycle.STATE_DIR),
                s.under(STREAMS_PREFIX));
    }

    /** Loads from every source in the one precedence; see {@link SettingsDefinition}. */
    public static RewardConfig load(final SettingsDefinition.Sources sources) {
        return of(DEFINITION.load(sources));
    }

    /** Settings given as keys, defaults for the missing ones. */
    public static RewardConfig fromMap(final Map<String, String> values) {
        return of(DEFINITION.parse(values));
    }

    /** The defaults of a run: the paper's reward specs and subsampling, MiniLM, a 30 min window. */
    public static RewardConfig defaults(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        return of(DEFINITION.defaults(run, bootstrapServers, schemaRegistryUrl));
    }

    /** A copy with other settings layered on top, validated again. */
    public RewardConfig with(final Map<String, String> overrides) {
        return of(settings.with(overrides));
    }

    /** The Kafka Streams application id: one per run, so a new run reads from the start. */
    public String applicationId() {
        return StageName.REWARD.groupId(run());
    }

    /** Whether this stage rescores another run's predictions. */
    public boolean isRescore() {
        return !sourceRun.equals(run());
    }

    /** Whether transitions of this environment are joined. */
    public boolean usesEnv(final String env) {
        return envs.isEmpty() || envs.contains(env);
    }

    /** A copy with further Kafka Streams settings. */
    public RewardConfig withStreamsOverrides(final Map<String, String> overrides) {
        final Map<String, String> prefixed = new HashMap<>();
        overrides.forEach((key, value) -> prefixed.put(STREAMS_PREFIX + key, value));
        return with(prefixed);
    }
}
