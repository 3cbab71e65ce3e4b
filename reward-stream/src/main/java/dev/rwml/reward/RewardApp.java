package dev.rwml.reward;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.streams.DeadLetterHandlers;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.group.AdvantageMode;
import dev.rwml.scoring.score.SimilarityScorer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reward stage's entry point: {@code RewardApp [config.properties]} (with {@code RWML_REWARD_*}
 * environment overrides) runs it until SIGTERM; {@link #start} runs it inside another program (the
 * {@code rwml} command, tests).
 */
public final class RewardApp {

    private static final Logger LOG = LoggerFactory.getLogger(RewardApp.class);

    private RewardApp() {}

    /** Reads the optional config file and the environment, then runs until stopped. */
    public static void main(final String[] args) {
        final Path file = args.length > 0 ? Path.of(args[0]) : null;
        System.exit(
                run(
                        RewardConfig.load(
                                SettingsDefinition.Sources.fileAndEnvironment(
                                        Optional.ofNullable(file)))));
    }

    /**
     * Runs the stage as the process's main work (see {@link StageRunner}); returns 0 after SIGTERM
     * or SIGINT, 1 with the reason on stderr when the stage died. Meters go to Micrometer's global
     * registry, where the command adds its Prometheus exporter.
     */
    public static int run(final RewardConfig config) {
        return StageRunner.run(start(config, Metrics.globalRegistry), config);
    }

    /**
     * Creates the run's topics if missing, builds the topology and starts it.
     *
     * @param config the validated settings
     * @param registry where the stage's meters go (Prometheus, or a simple registry)
     */
    public static RewardStage start(final RewardConfig config, final MeterRegistry registry) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        ensureTopics(config, catalog);
        final RewardMetrics metrics = new RewardMetrics(registry, config.run());
        final CachingEmbedder embedder = config.embedding().create(System.getenv());
        embedder.bindTo(registry, RewardMetrics.EMBEDDING_CACHE, Tags.of("run", config.run()));
        final Topology topology =
                RewardTopology.build(
                        config,
                        wiring(config, registryConfig(config)),
                        rewarder(config, embedder, metrics),
                        metrics,
                        Clock.systemUTC());
        LOG.info(
                "starting reward stage {}: {} -> {}, specs {}, embedding {}, window {} grace {}",
                config.applicationId(),
                catalog.run(config.sourceRun()).predictions().name(),
                catalog.run(config.run()).rewards().name(),
                config.rewardSpecs(),
                embedder.modelName(),
                config.joinWindow(),
                config.joinGrace());
        LOG.debug("topology:\n{}", topology.describe());
        final KafkaStreams streams = new KafkaStreams(topology, streamsProperties(config, metrics));
        final CompletableFuture<Void> termination =
                StreamsLifecycle.watch(
                        streams,
                        config.settings().restartPolicy(Clock.systemUTC()),
                        StageName.REWARD);
        streams.start();
        return new RewardStage(config, streams, embedder, metrics, termination);
    }

    /** Builds the rewarder that the topology calls for each joined pair. */
    public static GroupRewarder rewarder(
            final RewardConfig config,
            final CachingEmbedder embedder,
            final RewardMetrics metrics) {
        return new GroupRewarder(
                config.run(),
                config.rewardSpecs(),
                new SimilarityScorer(embedder),
                config.advantageMode(),
                config.advantageMode() == AdvantageMode.GRPO ? config.advantageEpsilon() : 0,
                config.subsample(),
                config.maxTextChars(),
                metrics,
                Clock.systemUTC());
    }

    /** The run's topics for {@link RewardTopology}, their serdes on {@code registryConfig}. */
    public static RewardTopology.Wiring wiring(
            final RewardConfig config, final Map<String, ?> registryConfig) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics source = catalog.run(config.sourceRun());
        final RunTopics target = catalog.run(config.run());
        return new RewardTopology.Wiring(
                catalog.transitions().name(),
                source,
                target,
                catalog.transitions().valueSerde(registryConfig),
                source.predictions().valueSerde(registryConfig),
                target.rewards().valueSerde(registryConfig),
                target.deadLetters().valueSerde(registryConfig));
    }

    /** The registry settings of the stage's serdes: the connection's. */
    public static Map<String, Object> registryConfig(final RewardConfig config) {
        return config.connection().registryConfig();
    }

    /** The Kafka Streams settings: exactly-once v2, the dead-letter handlers, the overrides. */
    public static Properties streamsProperties(
            final RewardConfig config, final RewardMetrics metrics) {
        final Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(
                StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                DeadLetterHandlers.Deserialization.class);
        props.put(
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                DeadLetterHandlers.Processing.class);
        if (!config.stateDir().isBlank()) {
            props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir());
        }
        props.putAll(registryConfig(config));
        props.putAll(handlerConfig(config, metrics));
        return StreamsLifecycle.properties(
                config.connection(),
                config.applicationId(),
                config.streamThreads(),
                props,
                config.streamsOverrides());
    }

    /** What the dead-letter handlers read from the Streams settings. */
    public static Map<String, Object> handlerConfig(
            final RewardConfig config, final RewardMetrics metrics) {
        return Map.of(
                DeadLetterHandlers.RUN_CONFIG,
                config.run(),
                DeadLetterHandlers.PREDICTIONS_TOPIC_CONFIG,
                TopicCatalog.defaults().run(config.sourceRun()).predictions().name(),
                DeadLetterHandlers.METRICS_CONFIG,
                metrics);
    }

    private static void ensureTopics(final RewardConfig config, final TopicCatalog catalog) {
        final RunTopics source = catalog.run(config.sourceRun());
        final RunTopics target = catalog.run(config.run());
        try (Admin client = config.connection().admin()) {
            new TopicAdmin(client, catalog)
                    .ensure(
                            List.of(
                                    catalog.transitions(),
                                    source.predictions(),
                                    target.rewards(),
                                    target.deadLetters()));
        }
    }
}
