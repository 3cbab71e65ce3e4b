package dev.rwml.scoring;

import dev.rwml.runtime.settings.Durations;
import dev.rwml.runtime.settings.Settings;
import dev.rwml.scoring.group.SubsamplePolicy;
import dev.rwml.scoring.score.RewardSpecTable;
import java.time.Duration;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The settings of how predictions are scored and judged too easy, declared once for the two stages
 * that score: the reward stage (the G samples of the policy being trained) and the filter stage
 * (the K tries of a filter model).
 */
public final class ScoringSettings {

    private ScoringSettings() {}

    /** Adds the reward specs, the embedding model and the too-easy subsampling to {@code def}. */
    public static ConfigDef define(final ConfigDef def) {
        final EmbeddingSettings e = EmbeddingSettings.defaults();
        final SubsamplePolicy s = SubsamplePolicy.paperDefaults();
        return def.define(
                        "reward.spec",
                        Type.STRING,
                        RewardSpecTable.paperDefaults().toString(),
                        (name, value) ->
                                RewardSpecTable.paperDefaults().withOverrides((String) value),
                        Importance.HIGH,
                        "Per next-state kind (optionally per env: alfworld/TEXT=exact): cosine,"
                                + " rouge (ROUGE-L on JSON masked to its types, rounded to 0.2),"
                                + " exact, or items (the F1 of a listed-items state's items as"
                                + " sets, default threshold 0.93), with the threshold a sample"
                                + " must exceed.")
                .define(
                        "embedding.provider",
                        Type.STRING,
                        e.provider(),
                        ConfigDef.ValidString.in(
                                EmbeddingSettings.MINILM, EmbeddingSettings.OPENAI),
                        Importance.HIGH,
                        "minilm (all-MiniLM-L6-v2, shipped in the jar, offline) or openai (any"
                                + " OpenAI-compatible /v1/embeddings server, e.g. one serving"
                                + " Qwen3-Embedding, the paper's model).")
                .define(
                        "embedding.url",
                        Type.STRING,
                        "",
                        Importance.MEDIUM,
                        "The openai provider's server, e.g. http://host:8000.")
                .define(
                        "embedding.model",
                        Type.STRING,
                        "",
                        Importance.MEDIUM,
                        "The openai provider's model name.")
                .define(
                        "embedding.api.key.env",
                        Type.STRING,
                        "",
                        Importance.LOW,
                        "The environment variable holding the openai provider's API key.")
                .define(
                        "embedding.timeout",
                        Type.STRING,
                        e.timeout().toString(),
                        Durations.atLeast(Duration.ofMillis(1)),
                        Importance.LOW,
                        "Timeout of one embedding call.")
                .define(
                        "embedding.cache.size",
                        Type.INT,
                        e.cacheSize(),
                        Range.atLeast(0),
                        Importance.LOW,
                        "Most embedded texts kept in memory (0 disables the cache).")
                .define(
                        "easy.keep.probability",
                        Type.DOUBLE,
                        s.easyKeepProbability(),
                        Range.between(0, 1),
                        Importance.MEDIUM,
                        "What is judged easy (at least easy.min.passes tries above"
                                + " easy.threshold) is kept with this probability, decided from"
                                + " (transitionId, subsample.seed); the paper's 0.1.")
                .define(
                        "easy.threshold",
                        Type.STRING,
                        "TEXT=0.9,USER_MESSAGE=0.85,TOOL_RESULT=0.85",
                        (name, value) -> SubsamplePolicy.thresholds((String) value),
                        Importance.MEDIUM,
                        "The data-stage similarity a try must exceed to count towards easy, per"
                                + " next-state kind: the paper's 1 - tau_d (tau_d 0.1 ALFWorld,"
                                + " 0.15 tau2), on the similarity the reward uses.")
                .define(
                        "easy.min.passes",
                        Type.INT,
                        s.easyMinPasses(),
                        Range.atLeast(1),
                        Importance.LOW,
                        "Tries above easy.threshold that make a transition easy (the"
                                + " paper's tau_easy: at least one of the tries).")
                .define(
                        "hard.keep",
                        Type.BOOLEAN,
                        s.keepHard(),
                        Importance.LOW,
                        "Keep what no try passed at the training threshold.")
                .define(
                        "subsample.seed",
                        Type.LONG,
                        s.seed(),
                        Importance.LOW,
                        "Seed of the subsampling draw.");
    }

    /** The reward spec of each environment and next-state kind. */
    public static RewardSpecTable rewardSpecs(final Settings s) {
        return RewardSpecTable.paperDefaults().withOverrides(s.getString("reward.spec"));
    }

    /** The embedding model and its cache. */
    public static EmbeddingSettings embedding(final Settings s) {
        return new EmbeddingSettings(
                s.getString("embedding.provider"),
                s.getString("embedding.url"),
                s.getString("embedding.model"),
                s.getString("embedding.api.key.env"),
                s.getDuration("embedding.timeout"),
                s.getInt("embedding.cache.size"));
    }

    /** The too-easy subsampling. */
    public static SubsamplePolicy subsample(final Settings s) {
        return new SubsamplePolicy(
                s.getDouble("easy.keep.probability"),
                s.getBoolean("hard.keep"),
                s.getLong("subsample.seed"),
                SubsamplePolicy.thresholds(s.getString("easy.threshold")),
                s.getInt("easy.min.passes"));
    }
}
