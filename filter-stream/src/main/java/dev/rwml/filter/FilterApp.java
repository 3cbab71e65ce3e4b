package dev.rwml.filter;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.start.StartPositions;
import dev.rwml.runtime.streams.DeadLetterHandlers;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
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
 * The filter stage's entry point: {@code FilterApp [config.properties]} (with {@code RWML_FILTER_*}
 * environment overrides) runs it until SIGTERM; {@link #start} runs it inside another program (the
 * {@code rwml} command, tests).
 */
public final class FilterApp {

    private static final Logger LOG = LoggerFactory.getLogger(FilterApp.class);

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Each transition costs K generations, so a poll brings few: the records of one poll must be
     * judged well within {@code max.poll.interval.ms}.
     */
    private static final int MAX_POLL_RECORDS = 20;

    private FilterApp() {}

    /** Reads the optional config file and the environment, then runs until stopped. */
    public static void main(final String[] args) {
        final Path file = args.length > 0 ? Path.of(args[0]) : null;
        System.exit(
                run(
                        FilterConfig.load(
                                SettingsDefinition.Sources.fileAndEnvironment(
                                        Optional.ofNullable(file)))));
    }

    /**
     * Runs the stage as the process's main work (see {@link StageRunner}); returns 0 after SIGTERM
     * or SIGINT, 1 with the reason on stderr when the stage died.
     */
    public static int run(final FilterConfig config) {
        return StageRunner.run(start(config, Metrics.globalRegistry), config);
    }

    /**
     * Creates the run's topics if missing, loads the filter model, sets where a new run starts,
     * builds the topology and starts it.
     *
     * @throws IllegalStateException when the filter model's version is not on its run's models
     *     topic (or does not verify); the message says what to do
     */
    public static FilterStage start(final FilterConfig config, final MeterRegistry registry) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics topics = catalog.run(config.run());
        try (Admin admin = config.connection().admin()) {
            new TopicAdmin(admin, catalog)
                    .ensure(
                            List.of(
                                    catalog.transitions(),
                                    topics.difficulty(),
                                    topics.curriculum(),
                                    topics.deadLetters()));
        }
        final Map<String, Object> registryConfig = config.connection().registryConfig();
        LOG.info("Filter stage of run {}: {}", config.run(), config.model().apply());
        final CheckpointModelLoader loader = CheckpointModelLoader.standard();
        final PredictionModel model;
        try {
            model = loadFilterModel(config, loader);
        } catch (RuntimeException e) {
            loader.close();
            throw e;
        }
        final CachingEmbedder embedder = config.embedding().create(System.getenv());
        embedder.bindTo(registry, FilterMetrics.EMBEDDING_CACHE, Tags.of("run", config.run()));
        final FilterMetrics metrics = new FilterMetrics(registry, config.run());
        final KafkaStreams streams;
        final CompletableFuture<Void> termination;
        try {
            final DifficultyJudge judge =
                    new DifficultyJudge(
                            config, model, new SimilarityScorer(embedder), Clock.systemUTC());
            try (Admin admin = config.connection().admin()) {
                StartPositions.seekIfNew(
                        admin,
                        config.applicationId(),
                        TopicCatalog.TRANSITIONS,
                        config.startFrom(),
                        () -> baseLineage(config),
                        ADMIN_TIMEOUT,
                        config.brokerTimeout());
            }
            final Topology topology =
                    FilterTopology.build(config, wiring(config, registryConfig), judge, metrics);
            streams = new KafkaStreams(topology, streamsProperties(config, metrics));
            termination =
                    StreamsLifecycle.watch(
                            streams,
                            config.settings().restartPolicy(Clock.systemUTC()),
                            StageName.FILTER);
        } catch (RuntimeException e) {
            model.close();
            loader.close();
            throw e;
        }
        LOG.info(
                "starting filter stage {}: {} -> {} and {}, filter model {} version {}, K={},"
                        + " easy above {} ({} pass(es)), easy kept with p={}",
                config.applicationId(),
                TopicCatalog.TRANSITIONS,
                topics.curriculum().name(),
                topics.difficulty().name(),
                config.filterRun(),
                model.version(),
                config.sampling().groupSize(),
                config.subsample().easyThresholds(),
                config.subsample().easyMinPasses(),
                config.subsample().easyKeepProbability());
        streams.start();
        return new FilterStage(config, streams, model, loader, embedder, metrics, termination);
    }

    private static PredictionModel loadFilterModel(
            final FilterConfig config, final CheckpointModelLoader loader) {
        try (ModelChannel channel = ModelChannel.of(config.connection(), config.filterRun());
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), ADMIN_TIMEOUT)) {
            return loader.load(reader.fetch(config.filterVersion()), reader);
        } catch (ArtifactRejectedException e) {
            throw new IllegalStateException(
                    "the filter model, version "
                            + config.filterVersion()
                            + " of run "
                            + config.filterRun()
                            + ", cannot be loaded: "
                            + e.getMessage()
                            + "; initialise the run first (rwml model init --run "
                            + config.filterRun()
                            + ") or set filter.run / filter.version",
                    e);
        }
    }

    /** Version 0's lineage in the run itself: where {@code start.from=after-base} starts. */
    private static List<OffsetRange> baseLineage(final FilterConfig config) {
        try (ModelChannel channel = ModelChannel.of(config.connection(), config.run());
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), ADMIN_TIMEOUT)) {
            return reader.manifest(0)
                    .map(ModelVersion::getLineage)
                    .orElseThrow(
                            () ->
                                    new IllegalStateException(
                                            "start.from=after-base needs version 0's manifest on "
                                                    + channel.modelsTopic()
                                                    + ", which has none; set start.from to"
                                                    + " earliest, latest or a time"));
        }
    }

    /** The run's topics for {@link FilterTopology}, their serdes on {@code registryConfig}. */
    static FilterTopology.Wiring wiring(
            final FilterConfig config, final Map<String, ?> registryConfig) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics topics = catalog.run(config.run());
        return new FilterTopology.Wiring(
                catalog.transitions().name(),
                topics,
                catalog.transitions().valueSerde(registryConfig),
                topics.difficulty().valueSerde(registryConfig),
                topics.curriculum().valueSerde(registryConfig));
    }

    /** The Kafka Streams settings: exactly-once v2, the dead-letter handlers, the overrides. */
    static Properties streamsProperties(final FilterConfig config, final FilterMetrics metrics) {
        final Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        props.put(
                StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                DeadLetterHandlers.Deserialization.class);
        props.put(
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                DeadLetterHandlers.Processing.class);
        if (!config.stateDir().isBlank()) {
            props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir());
        }
        props.putAll(config.connection().registryConfig());
        props.put(DeadLetterHandlers.RUN_CONFIG, config.run());
        props.put(DeadLetterHandlers.STAGE_CONFIG, StageName.FILTER.id());
        props.put(DeadLetterHandlers.METRICS_CONFIG, metrics);
        return StreamsLifecycle.properties(
                config.connection(),
                config.applicationId(),
                config.streamThreads(),
                props,
                config.streamsOverrides());
    }
}
