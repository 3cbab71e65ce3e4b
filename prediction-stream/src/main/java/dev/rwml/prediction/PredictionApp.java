package dev.rwml.prediction;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelFollower;
import dev.rwml.channel.ModelSlot;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.ModelLoader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and starts the prediction stage of one run: follows the run's model versions, and once
 * version 0 is loaded runs the {@link PredictionTopology} (exactly once) from {@code
 * rwml.transitions} to {@code rwml.<run>.predictions}, swapping versions between batches as new
 * ones are published.
 *
 * <p>{@link #run(PredictionConfig)} is the command-line entry point ({@code rwml predict}); {@link
 * #start} returns the running {@link PredictionStage} for embedding and tests.
 */
public final class PredictionApp {

    private static final Logger LOG = LoggerFactory.getLogger(PredictionApp.class);

    private PredictionApp() {}

    /**
     * Starts the stage: ensures the run's topics, follows the models topic at once and starts
     * consuming transitions once version 0 is loaded. Close the stage to stop.
     */
    public static PredictionStage start(
            final PredictionConfig config, final MeterRegistry registry, final ModelLoader loader) {
        return start(config, registry, loader, GenerationGate.unpaced(), Clock.systemUTC());
    }

    /**
     * Starts the stage as {@link #start(PredictionConfig, MeterRegistry, ModelLoader)} does,
     * generating only what {@code gate} lets through (a replay's rounds).
     */
    public static PredictionStage start(
            final PredictionConfig config,
            final MeterRegistry registry,
            final ModelLoader loader,
            final GenerationGate gate) {
        return start(config, registry, loader, gate, Clock.systemUTC());
    }

    static PredictionStage start(
            final PredictionConfig config,
            final MeterRegistry registry,
            final ModelLoader loader,
            final GenerationGate gate,
            final Clock clock) {
        LOG.info("Prediction stage of run {}: {}", config.run(), config.model().apply());
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics topics = catalog.run(config.run());
        try (Admin admin = config.connection().admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(config.run()));
        }
        final Map<String, Object> registryConfig = config.connection().registryConfig();
        final ModelSlot slot = new ModelSlot();
        final PredictionMetrics metrics = new PredictionMetrics(registry, config.run(), slot);
        final Topology topology =
                PredictionTopology.build(
                        config,
                        new PredictionTopology.Wiring(
                                config.inputTopic(),
                                topics,
                                catalog.transitions().valueSerde(registryConfig).deserializer(),
                                topics.predictions().valueSerde(registryConfig).serializer(),
                                topics.deadLetters().valueSerde(registryConfig).serializer()),
                        slot,
                        gate,
                        metrics,
                        clock);
        LOG.info("Prediction topology of run {}:\n{}", config.run(), topology.describe());
        final KafkaStreams streams = new KafkaStreams(topology, streamsProperties(config));
        final CompletableFuture<Void> streamsDone =
                StreamsLifecycle.watch(
                        streams, config.settings().restartPolicy(clock), StageName.PREDICTION);
        final ModelChannel channel = ModelChannel.of(config.connection(), config.run());
        final ModelFollower follower;
        try {
            follower =
                    ModelFollower.start(
                            channel,
                            Optional.empty(),
                            (artifact, versions) -> slot.install(loader.load(artifact, versions)),
                            Duration.ofMillis(500),
                            Optional.of(StageName.PREDICTION));
        } catch (RuntimeException e) {
            // The streams client already holds its own clients and threads; free them.
            streams.close(Duration.ofSeconds(10));
            channel.close();
            throw e;
        }
        final PredictionStage stage =
                new PredictionStage(
                        config, slot, loader, metrics, channel, follower, streams, streamsDone);
        stage.begin();
        return stage;
    }

    /**
     * Runs the stage as the process's main work (see {@link StageRunner}): returns 0 after SIGTERM
     * or SIGINT, 1 with the reason on stderr when the stage died. Metrics go to Micrometer's global
     * registry, where the command adds its exporter.
     */
    public static int run(final PredictionConfig config) {
        LOG.info("Starting prediction stage of run {} on {}", config.run(), config.connection());
        return StageRunner.run(start(config, Metrics.globalRegistry, loader(config)), config);
    }

    /**
     * The loader {@code config} samples with: the in-process decoder, or with {@code
     * sampler=remote} an inference server (each version still loaded here for its tokenizer and
     * prompt format).
     *
     * @throws IllegalArgumentException when the remote sampler's settings are incomplete
     */
    public static ModelLoader loader(final PredictionConfig config) {
        return loader(config.run(), config.remoteSampler());
    }

    /**
     * The loader of {@code run}'s versions: the in-process decoder, or an inference server when
     * {@code remote} names one (each version still loaded here for its tokenizer and prompts). The
     * agent of {@code rwml env run --policy model} samples its actions through it too.
     */
    public static ModelLoader loader(
            final String run, final Optional<RemoteSamplerSettings> remote) {
        final CheckpointModelLoader local = CheckpointModelLoader.standard();
        if (remote.isEmpty()) {
            return local;
        }
        LOG.info(
                "Run {}: sampling through the inference server at {} (model {})",
                run,
                remote.get().server(),
                remote.get().model());
        return new RemoteModelLoader(run, remote.get(), local);
    }

    /**
     * Runs the stage outside the {@code rwml} command: {@code PredictionApp [config.properties]},
     * with the settings in the file or in {@code RWML_PREDICTION_*} variables.
     */
    public static void main(final String[] args) {
        if (args.length > 1) {
            throw new IllegalArgumentException(
                    "usage: PredictionApp [config.properties]; `rwml predict --help-config` lists"
                            + " the settings");
        }
        final PredictionConfig config =
                PredictionConfig.load(
                        SettingsDefinition.Sources.fileAndEnvironment(
                                Optional.ofNullable(args.length == 1 ? Path.of(args[0]) : null)));
        System.exit(run(config));
    }

    static Properties streamsProperties(final PredictionConfig config) {
        final Map<String, Object> p = new HashMap<>();
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toString());
        // One batch's generation happens inside a transaction and between two polls.
        final long longest = config.transactionTimeout().toMillis();
        p.put(
                StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                (int) longest);
        p.put(
                StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG),
                (int) Math.max(longest, 300_000));
        p.put(
                StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG),
                config.startFrom().kind() == StartPosition.Kind.LATEST ? "latest" : "earliest");
        return StreamsLifecycle.properties(
                config.connection(),
                config.applicationId(),
                config.streamThreads(),
                p,
                config.streamsOverrides());
    }
}
