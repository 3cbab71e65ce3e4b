package dev.rwml.filter;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.Settings;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.settings.StageConfig;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StopAt;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.ScoringSettings;
import dev.rwml.scoring.group.SubsamplePolicy;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.worldmodel.ModelRuntime;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The filter stage's settings, declared in {@link #DEFINITION} and loaded like every stage's (see
 * {@link SettingsDefinition}); {@code rwml filter --help-config} prints the table.
 *
 * @param settings the validated settings these fields were read from
 * @param filterRun the run whose model version judges transitions
 * @param filterVersion that version (the run's base model, 0, by default)
 * @param startFrom where a new run starts reading the transitions log
 * @param sampling K tries per transition and how they are sampled
 * @param maxPromptTokens the longest prompt, as in the prediction stage
 * @param envs the environments whose transitions are judged; empty for all
 * @param rewardSpecs the reward spec of each environment and next-state kind (its similarity)
 * @param embedding the embedding model and its cache
 * @param subsample the data-stage thresholds, tau_easy and the keep probability of easy ones
 * @param maxTextChars transitions with a longer next observation are dead-lettered
 * @param streamThreads Kafka Streams threads
 * @param model the device and PyTorch threads of the filter model
 * @param stateDir Kafka Streams state directory; blank for its default
 * @param streamsOverrides further Kafka Streams settings (keys prefixed {@code streams.})
 * @param stopAt per partition of the transitions log, the first offset not judged (replay's bound)
 */
public record FilterConfig(
        Settings settings,
        String filterRun,
        long filterVersion,
        StartPosition startFrom,
        SamplingSettings sampling,
        int maxPromptTokens,
        Set<String> envs,
        RewardSpecTable rewardSpecs,
        EmbeddingSettings embedding,
        SubsamplePolicy subsample,
        int maxTextChars,
        int streamThreads,
        ModelRuntime model,
        String stateDir,
        Map<String, String> streamsOverrides,
        StopAt stopAt)
        implements StageConfig {

    /** Prefix of keys passed to Kafka Streams without it. */
    public static final String STREAMS_PREFIX = "streams.";

    /** The paper's K: tries of the filter model per transition. */
    public static final int PAPER_TRIES = 10;

    /** Every setting of the stage. */
    public static final SettingsDefinition DEFINITION =
            SettingsDefinition.of(StageName.FILTER, FilterConfig::define, List.of(STREAMS_PREFIX));

    private static void define(final ConfigDef def) {
        ModelRuntime.define(
                        ScoringSettings.define(
                                StopAt.define(
                                        StartPosition.define(
                                                StreamsLifecycle.defineStreamThreads(def)))))
                .define(
                        "filter.run",
                        Type.STRING,
                        "",
                        Importance.MEDIUM,
                        "The run whose model judges transitions; empty: the run itself.")
                .define(
                        "filter.version",
                        Type.LONG,
                        0L,
                        Range.atLeast(0),
                        Importance.MEDIUM,
                        "The filter model's version on filter.run's models topic (0: the base"
                                + " model; the paper uses a model fine-tuned on a held-out 10%).")
                .define(
                        "tries",
                        Type.INT,
                        PAPER_TRIES,
                        Range.between(1, 256),
                        Importance.HIGH,
                        "K: predictions of the filter model per transition (the paper's 10).");
        // Split so that the sampling keys stay beside the group size in the settings table.
        SamplingSettings.define(def)
                .define(
                        "prompt.max.tokens",
                        Type.INT,
                        512,
                        Range.between(8, 1_000_000),
                        Importance.LOW,
                        "Longest prompt in tokens, at most the model's context less"
                                + " sampling.max.new.tokens; the oldest history turns go first.")
                .define(
                        "envs",
                        Type.LIST,
                        "",
                        Importance.LOW,
                        "Environments to judge, comma-separated; empty: all (others are not"
                                + " passed on).")
                .define(
                        "max.text.chars",
                        Type.INT,
                        16_384,
                        Range.atLeast(1),
                        Importance.LOW,
                        "Transitions with a longer next observation go to the dead-letter topic.")
                .define(
                        StreamsLifecycle.STATE_DIR,
                        Type.STRING,
                        "",
                        Importance.LOW,
                        "Kafka Streams state directory; empty: Kafka Streams' default.");
    }

    /** Freezes the collections. */
    public FilterConfig {
        envs = Set.copyOf(envs);
        streamsOverrides = Map.copyOf(streamsOverrides);
    }

    /** The fields of validated settings. */
    public static FilterConfig of(final Settings s) {
        final String filterRun = s.getString("filter.run");
        return new FilterConfig(
                s,
                filterRun.isBlank() ? s.run() : filterRun,
                s.getLong("filter.version"),
                StartPosition.parse(s.getString(StartPosition.SETTING)),
                SamplingSettings.from(s, s.getInt("tries")),
                s.getInt("prompt.max.tokens"),
                new LinkedHashSet<>(s.getList("envs")),
                ScoringSettings.rewardSpecs(s),
                ScoringSettings.embedding(s),
                ScoringSettings.subsample(s),
                s.getInt("max.text.chars"),
                s.getInt(StreamsLifecycle.STREAM_THREADS),
                ModelRuntime.from(s),
                s.getString(StreamsLifecycle.STATE_DIR),
                s.under(STREAMS_PREFIX),
                StopAt.parse(s.getString(StopAt.SETTING)));
    }

    /** Loads from every source in the one precedence; see {@link SettingsDefinition}. */
    public static FilterConfig load(final SettingsDefinition.Sources sources) {
        return of(DEFINITION.load(sources));
    }

    /** Settings given as keys, defaults for the missing ones. */
    public static FilterConfig fromMap(final Map<String, String> values) {
        return of(DEFINITION.parse(values));
    }

    /** The defaults of a run: version 0 judges, K = 10, the paper's thresholds, MiniLM. */
    public static FilterConfig defaults(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        return of(DEFINITION.defaults(run, bootstrapServers, schemaRegistryUrl));
    }

    /** A copy with other settings layered on top, validated again. */
    public FilterConfig with(final Map<String, String> overrides) {
        return of(settings.with(overrides));
    }

    /** The Kafka Streams application id: {@code rwml-<run>-filter}. */
    public String applicationId() {
        return StageName.FILTER.groupId(run());
    }

    /** Whether transitions of this environment are judged. */
    public boolean usesEnv(final String env) {
        return envs.isEmpty() || envs.contains(env);
    }

    /** The prompt budget under a model of {@code maxContext} tokens. */
    public int promptBudget(final int maxContext) {
        return sampling.promptBudget(maxPromptTokens, maxContext);
    }
}
