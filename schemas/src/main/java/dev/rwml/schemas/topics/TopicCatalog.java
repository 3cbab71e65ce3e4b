package dev.rwml.schemas.topics;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Rollout;
import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The one place that declares every topic of the system with its settings and serdes: the shared
 * {@code rwml.transitions} (the source of truth, kept forever), and per run {@code
 * rwml.<run>.predictions}, {@code .rewards}, {@code .models}, {@code .model-chunks}, {@code
 * .dead-letters}, {@code .rollouts}, and the difficulty filter's {@code .difficulty} and {@code
 * .curriculum}.
 *
 * <p>Keys are plain UTF-8 strings (the transition id, or a model version number) except on
 * dead-letter topics, whose keys are the original key bytes.
 */
public final class TopicCatalog {
    /** The shared log of every transition of every environment. */
    public static final String TRANSITIONS = "rwml.transitions";

    /** The largest {@code data} a model chunk may carry. */
    public static final int MODEL_CHUNK_MAX_DATA_BYTES = 8 * 1024 * 1024;

    /** The topics' message limit for chunks: the data plus room for the record and its framing. */
    public static final int MODEL_CHUNK_MAX_MESSAGE_BYTES = MODEL_CHUNK_MAX_DATA_BYTES + 512 * 1024;

    private static final String KEEP_FOREVER = "-1";

    private final CatalogSettings settings;
    private final TopicSpec<String, Transition> transitions;

    public TopicCatalog(final CatalogSettings settings) {
        this.settings = settings;
        this.transitions = keptForever(TRANSITIONS, PartitionRule.CO_PARTITIONED, Transition.class);
    }

    /** The catalog with default settings (4 co-partitioned partitions). */
    public static TopicCatalog defaults() {
        return new TopicCatalog(CatalogSettings.defaults());
    }

    public CatalogSettings settings() {
        return settings;
    }

    /** {@code rwml.transitions}: Transition values keyed by transitionId, kept forever. */
    public TopicSpec<String, Transition> transitions() {
        return transitions;
    }

    /** The topics shared by every run. */
    public List<TopicSpec<?, ?>> shared() {
        return List.of(transitions);
    }

    /** The topics of a run, after validating its name. */
    public RunTopics run(final String runName) {
        return run(RunName.of(runName));
    }

    /** The topics of a run. */
    public RunTopics run(final RunName run) {
        final String prefix = "rwml." + run.value() + ".";
        return new RunTopics(
                run,
                derived(prefix + "predictions", PredictionGroup.class),
                derived(prefix + "rewards", RewardedGroup.class),
                derived(prefix + "curriculum", Transition.class),
                derived(prefix + "difficulty", TransitionDifficulty.class),
                new TopicSpec<>(
                        prefix + "models",
                        1,
                        PartitionRule.EXACT,
                        Map.of(
                                TopicConfig.CLEANUP_POLICY_CONFIG,
                                TopicConfig.CLEANUP_POLICY_DELETE,
                                TopicConfig.RETENTION_MS_CONFIG,
                                KEEP_FOREVER),
                        Serdes.String(),
                        ModelVersion.class),
                new TopicSpec<>(
                        prefix + "model-chunks",
                        1,
                        PartitionRule.EXACT,
                        Map.of(
                                // Compacted: the trainer tombstones the chunks of versions that
                                // leave its retention window (ChunkRetention), the rest stay.
                                TopicConfig.CLEANUP_POLICY_CONFIG,
                                TopicConfig.CLEANUP_POLICY_COMPACT,
                                TopicConfig.RETENTION_MS_CONFIG,
                                KEEP_FOREVER,
                                TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                                Integer.toString(MODEL_CHUNK_MAX_MESSAGE_BYTES)),
                        Serdes.String(),
                        ModelChunk.class),
                deadLetterTopic(prefix + "dead-letters"),
                // The agent's own experience, like the transitions: not derivable.
                keptForever(prefix + "rollouts", PartitionRule.ANY, Rollout.class));
    }

    /** A topic of String keys whose records are never deleted: a source of truth. */
    private <V extends org.apache.avro.specific.SpecificRecord> TopicSpec<String, V> keptForever(
            final String name, final PartitionRule rule, final Class<V> type) {
        return new TopicSpec<>(
                name,
                settings.partitions(),
                rule,
                Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG,
                        TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG,
                        KEEP_FOREVER,
                        TopicConfig.RETENTION_BYTES_CONFIG,
                        KEEP_FOREVER),
                Serdes.String(),
                type);
    }

    /** The shared topics and those of a run: what a run's stages need to exist. */
    public List<TopicSpec<?, ?>> forRun(final String runName) {
        final List<TopicSpec<?, ?>> all = new ArrayList<>(shared());
        all.addAll(run(runName).all());
        return all;
    }

    /** Producer settings that let a producer send whole model chunks. */
    public static Map<String, Object> modelChunkProducerOverrides() {
        return Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MODEL_CHUNK_MAX_MESSAGE_BYTES);
    }

    private <V extends org.apache.avro.specific.SpecificRecord> TopicSpec<String, V> derived(
            final String name, final Class<V> type) {
        return new TopicSpec<>(
                name,
                settings.partitions(),
                PartitionRule.CO_PARTITIONED,
                Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG,
                        TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG,
                        millis(settings.derivedRetention())),
                Serdes.String(),
                type);
    }

    private TopicSpec<byte[], DeadLetter> deadLetterTopic(final String name) {
        return new TopicSpec<>(
                name,
                1,
                PartitionRule.ANY,
                Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG,
                        TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG,
                        millis(settings.deadLetterRetention()),
                        // A dead letter carries the original bytes, a model chunk's included.
                        TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        Integer.toString(MODEL_CHUNK_MAX_MESSAGE_BYTES + 512 * 1024)),
                Serdes.ByteArray(),
                DeadLetter.class);
    }

    private static String millis(final Duration duration) {
        return Long.toString(duration.toMillis());
    }
}
