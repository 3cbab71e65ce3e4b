package dev.rwml.prediction;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.Durations;
import dev.rwml.runtime.settings.Settings;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.settings.StageConfig;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StopAt;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.ModelRuntime;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Settings of one prediction-stream run, declared in {@link #DEFINITION} and loaded like every
 * stage's (see {@link SettingsDefinition}); {@code rwml predict --help-config} prints the table.
 *
 * @param settings the validated settings these fields were read from
 * @param startFrom where a new consumer group starts
 * @param samplingSeed mixed into every batch's sampling seed
 * @param stopAt per partition of the input topic, the first offset not predicted
 */
public record PredictionConfig(
        Settings settings,
        String applicationId,
        StartPosition startFrom,
        int groupSize,
        float temperature,
        float topP,
        int maxNewTokens,
        long samplingSeed,
        int batchSize,
        Duration batchMaxWait,
        int streamThreads,
        ModelRuntime model,
        Set<String> envNames,
        Set<String> splits,
        int maxPromptTokens,
        OverLengthPolicy overLength,
        Path stateDir,
        Duration transactionTimeout,
        Map<String, String> streamsOverrides,
        StopAt stopAt)
        implements StageConfig {

    /** {@code input}: every transition of the shared log. */
    public static final String INPUT_TRANSITIONS = "transitions";

    /** {@code input}: the transitions the run's filter stage kept. */
    public static final String INPUT_CURRICULUM = "curriculum";

    /** Prefix of keys passed to Kafka Streams without it. */
    public static final String STREAMS_PREFIX = "streams.";

    /** The setting of {@link #groupSize()}: G samples per transition. */
    public static final String GROUP_SIZE = "group.size";

    /** The setting of {@link #batchSize()}. */
    public static final String BATCH_SIZE = "batch.size";

    /** The setting of {@link #flowMaxGroupsAhead()}. */
    public static final String FLOW_MAX_GROUPS_AHEAD = "flow.max.groups.ahead";

    /** The setting choosing where the stage samples. */
    public static final String SAMPLER = "sampler";

    /** {@code sampler}: the in-process decoder. */
    public static final String SAMPLER_LOCAL = "local";

    /** {@code sampler}: an inference server; see {@link #remoteSampler()}. */
    public static final String SAMPLER_REMOTE = "remote";

    /** Every setting of the stage. */
    public static final SettingsDefinition DEFINITION =
            SettingsDefinition.of(
                    StageName.PREDICTION, PredictionConfig::define, List.of(STREAMS_PREFIX));

    private static void define(final ConfigDef def) {
        StopAt.define(def);
        ModelRuntime.define(StartPosition.define(StreamsLifecycle.defineStreamThreads(def)))
                .define(
                        "application.id",
                        Type.STRING,
                        "",
                        Importance.MEDIUM,
                        "Kafka Streams application id; empty: rwml-<run>-prediction.")
                .define(
                        "input",
                        Type.STRING,
                        INPUT_TRANSITIONS,
                        ConfigDef.ValidString.in(INPUT_TRANSITIONS, INPUT_CURRICULUM),
                        Importance.HIGH,
                        "transitions (rwml.transitions, every transition) or curriculum"
                                + " (rwml.<run>.curriculum: what the filter stage kept).")
                .define(
                        GROUP_SIZE,
                        Type.INT,
                        8,
                        Range.between(1, 256),
                        Importance.HIGH,
                        "G samples per transition.");
        // Split so that the sampling keys stay beside the group size in the settings table.
        SamplingSettings.define(def)
                .define(
                        "sampling.seed",
                        Type.LONG,
                        0L,
                        Importance.LOW,
                        "Mixed into each batch's sampling seed, which otherwise comes from its"
                                + " transition ids (so a batch regenerated after a crash samples"
                                + " the same): runs that differ only here sample independently.")
                .define(
                        BATCH_SIZE,
                        Type.INT,
                        8,
                        Range.between(1, 1024),
                        Importance.MEDIUM,
                        "Transitions generated together.")
                .define(
                        FLOW_MAX_GROUPS_AHEAD,
                        Type.INT,
                        0,
                        Range.atLeast(0),
                        Importance.MEDIUM,
                        "Flow control: stop consuming while more than this many of the run's"
                                + " prediction groups wait for the reward stage or the trainer"
                                + " (their lag on the predictions and rewards topics), so"
                                + " generation stays within reach of staleness.bound instead of"
                                + " sampling groups the trainer will drop; 0: no limit.")
                .define(
                        "batch.max.wait",
                        Type.STRING,
                        "PT0.2S",
                        Durations.atLeast(Duration.ofMillis(1)),
                        Importance.LOW,
                        "Flush a partial batch after this long.")
                .define(
                        "select.envs",
                        Type.LIST,
                        "",
                        Importance.LOW,
                        "Environments to predict, comma-separated; empty: all.")
                .define(
                        "select.splits",
                        Type.LIST,
                        "",
                        Importance.LOW,
                        "Splits to predict, comma-separated; empty: all.")
                .define(
                        "prompt.max.tokens",
                        Type.INT,
                        512,
                        Range.between(8, 1_000_000),
                        Importance.MEDIUM,
                        "Longest prompt in tokens; the stage uses at most the model's context less"
                                + " sampling.max.new.tokens, so one long prompt never shortens"
                                + " the completions of its batch.")
                .define(
                        "prompt.over.length",
                        Type.STRING,
                        "truncate-history",
                        ConfigDef.ValidString.in("truncate-history", "dead-letter"),
                        Importance.MEDIUM,
                        "Longer prompts lose their oldest history turns (truncate-history) or go"
                                + " to the dead-letter topic (dead-letter).")
                .define(
                        SAMPLER,
                        Type.STRING,
                        SAMPLER_LOCAL,
                        ConfigDef.ValidString.in(SAMPLER_LOCAL, SAMPLER_REMOTE),
                        Importance.HIGH,
                        "local (the in-process decoder) or remote (an inference server speaking"
                                + " vLLM's /v1/completions, such as vLLM or rwml serve; the stage"
                                + " still loads each version locally for its tokenizer and"
                                + " prompt format).")
                .define(
                        "sampler.url",
                        Type.STRING,
                        "",
                        Importance.HIGH,
                        "The remote sampler's server, e.g. http://gpu-box:8000.")
                .define(
                        "sampler.api.key.env",
                        Type.STRING,
                        "",
                        Importance.LOW,
                        "The environment variable holding the remote sampler's API key (sent as"
                                + " a bearer token).")
                .define(
                        "sampler.model",
                        Type.STRING,
                        "",
                        Importance.MEDIUM,
                        "The model name the server serves the run's base (vLLM's"
                                + " --served-model-name); empty: the run's name.")
                .define(
                        "sampler.adapter.dir",
                        Type.STRING,
                        "",
                        Importance.MEDIUM,
                        "A directory the server reads: each LoRA version's PEFT adapter is"
                                + " written to <dir>/<run>-v<N> and loaded as <run>-v<N>.")
                .define(
                        "sampler.timeout",
                        Type.STRING,
                        RemoteSamplerSettings.DEFAULT_TIMEOUT.toString(),
                        Durations.atLeast(Duration.ofMillis(1)),
                        Importance.LOW,
                        "Timeout of one call to the remote sampler (a whole batch's"
                                + " completions).")
                .define(
                        StreamsLifecycle.STATE_DIR,
                        Type.STRING,
                        "",
                        Importance.LOW,
                        "Kafka Streams state directory; empty: rwml-streams in java.io.tmpdir. It"
                                + " keeps the batch buffer and the instance's process id, so an"
                                + " instance restarted on it after a crash fences the dead one's"
                                + " transaction at once; two instances on one machine need two.")
                .define(
                        "transaction.timeout",
                        Type.STRING,
                        "PT5M",
                        Durations.atLeast(Duration.ofSeconds(1)),
                        Importance.LOW,
                        "Producer transaction timeout; must exceed one batch's generation.");
    }

    /** Freezes the collections. */
    public PredictionConfig {
        envNames = Collections.unmodifiableSet(new LinkedHashSet<>(envNames));
        splits = Collections.unmodifiableSet(new LinkedHashSet<>(splits));
        streamsOverrides = Map.copyOf(new TreeMap<>(streamsOverrides));
    }

    /** The fields of validated settings. */
    public static PredictionConfig of(final Settings s) {
        final String run = s.run();
        final String appId = s.getString("application.id");
        final SamplingSettings sampling = SamplingSettings.from(s, s.getInt(GROUP_SIZE));
        return new PredictionConfig(
                s,
                appId.isBlank() ? StageName.PREDICTION.groupId(run) : appId,
                StartPosition.parse(s.getString(StartPosition.SETTING)),
                sampling.groupSize(),
                sampling.temperature(),
                sampling.topP(),
                sampling.maxNewTokens(),
                s.getLong("sampling.seed"),
                s.getInt(BATCH_SIZE),
                s.getDuration("batch.max.wait"),
                s.getInt(StreamsLifecycle.STREAM_THREADS),
                ModelRuntime.from(s),
                new LinkedHashSet<>(s.getList("select.envs")),
                new LinkedHashSet<>(s.getList("select.splits")),
                s.getInt("prompt.max.tokens"),
                OverLengthPolicy.parse(s.getString("prompt.over.length")),
                s.getString(StreamsLifecycle.STATE_DIR).isBlank()
                        ? Path.of(System.getProperty("java.io.tmpdir"), "rwml-streams")
                        : Path.of(s.getString(StreamsLifecycle.STATE_DIR)),
                s.getDuration("transaction.timeout"),
                s.under(STREAMS_PREFIX),
                StopAt.parse(s.getString(StopAt.SETTING)));
    }

    /** Loads from every source in the one precedence; see {@link SettingsDefinition}. */
    public static PredictionConfig load(final SettingsDefinition.Sources sources) {
        return of(DEFINITION.load(sources));
    }

    /** The defaults for a run on a cluster. */
    public static PredictionConfig defaults(
            final String run, final String bootstrapServers, final String schemaRegistryUrl) {
        return of(DEFINITION.defaults(run, bootstrapServers, schemaRegistryUrl));
    }

    /** Settings given as keys, defaults for the missing ones. */
    public static PredictionConfig fromMap(final Map<String, String> values) {
        return of(DEFINITION.parse(values));
    }

    /** A copy with other settings layered on top, validated again. */
    public PredictionConfig with(final Map<String, String> overrides) {
        return of(settings.with(overrides));
    }

    /** The settings as given, the keys {@link #fromMap} reads. */
    public Map<String, String> toMap() {
        return settings.given();
    }

    /** Groups that may wait downstream before the stage stops consuming; 0: no limit. */
    public int flowMaxGroupsAhead() {
        return settings.getInt(FLOW_MAX_GROUPS_AHEAD);
    }

    /** The topic the stage reads transitions from ({@code input}). */
    public String inputTopic() {
        final TopicCatalog catalog = TopicCatalog.defaults();
        return settings.getString("input").equals(INPUT_CURRICULUM)
                ? catalog.run(run()).curriculum().name()
                : catalog.transitions().name();
    }

    /** How the stage samples: G completions at the configured temperature, nucleus and length. */
    public SamplingSettings sampling() {
        return new SamplingSettings(groupSize, temperature, topP, maxNewTokens);
    }

    /**
     * The remote sampler's settings when {@code sampler=remote}, empty for in-process sampling.
     *
     * @throws IllegalArgumentException when {@code sampler.url} is missing or its API key variable
     *     is unset
     */
    public Optional<RemoteSamplerSettings> remoteSampler() {
        if (!settings.getString(SAMPLER).equals(SAMPLER_REMOTE)) {
            return Optional.empty();
        }
        final String model = settings.getString("sampler.model");
        final String adapterDir = settings.getString("sampler.adapter.dir");
        return Optional.of(
                RemoteSamplerSettings.of(
                        settings.getString("sampler.url"),
                        settings.getString("sampler.api.key.env"),
                        model.isBlank() ? run() : model,
                        adapterDir.isBlank() ? Optional.empty() : Optional.of(Path.of(adapterDir)),
                        settings.getDuration("sampler.timeout")));
    }

    /**
     * The prompt budget under a model of {@code maxContext} tokens; see {@link
     * SamplingSettings#promptBudget}.
     */
    public int promptBudget(final int maxContext) {
        return sampling().promptBudget(maxPromptTokens, maxContext);
    }

    /**
     * Whether the record at {@code offset} of an input partition lies at or after {@code stop.at},
     * so the stage skips it; partitions not named have no end.
     */
    public boolean pastStop(final int partition, final long offset) {
        return stopAt.isPast(partition, offset);
    }
}
