package dev.rwml.prediction;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelFollower;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.runtime.lifecycle.StageFailedException;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StartPositions;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.ModelLoader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
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
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The prediction stage of one run: follows the run's model versions, and once version 0 is loaded
 * runs the {@link PredictionTopology} (exactly once) from {@code rwml.transitions} to {@code
 * rwml.<run>.predictions}, swapping versions between batches as new ones are published.
 *
 * <p>{@link #run(PredictionConfig)} is the command-line entry point ({@code rwml predict}); {@link
 * #start} returns a running instance for embedding and tests.
 */
public final class PredictionApp implements RunningStage {

    /** What the app is doing. */
    public enum Phase {
        /** No model version loaded yet: nothing is consumed. */
        WAITING_FOR_MODEL,
        /** The streams are started (see {@link #streamsState()}). */
        STREAMING,
        /** It could not start, or its streams stopped on an error; see the log. */
        FAILED,
        /** Closed. */
        CLOSED
    }

    private static final Logger LOG = LoggerFactory.getLogger(PredictionApp.class);
    private static final Duration WAIT_LOG_EVERY = Duration.ofSeconds(10);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final PredictionConfig config;
    private final ModelSlot slot;
    private final ModelLoader loader;
    private final PredictionMetrics metrics;
    private final ModelChannel channel;
    private final ModelFollower follower;
    private final KafkaStreams streams;
    private final Thread starter;
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    private volatile Phase phase = Phase.WAITING_FOR_MODEL;
    private volatile boolean closed;

    private PredictionApp(
            final PredictionConfig config,
            final MeterRegistry registry,
            final ModelLoader loader,
            final Clock clock) {
        this.config = config;
        LOG.info("Prediction stage of run {}: {}", config.run(), config.model().apply());
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics topics = catalog.run(config.run());
        try (Admin admin = config.connection().admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(config.run()));
        }
        final Map<String, Object> registryConfig = config.connection().registryConfig();
        this.slot = new ModelSlot();
        this.loader = loader;
        this.metrics = new PredictionMetrics(registry, config.run(), slot);
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
                        metrics,
                        clock);
        LOG.info("Prediction topology of run {}:\n{}", config.run(), topology.describe());
        this.streams = new KafkaStreams(topology, streamsProperties(config));
        StreamsLifecycle.watch(
                        streams, config.settings().restartPolicy(clock), StageName.PREDICTION)
                .whenComplete(
                        (done, error) -> {
                            if (error != null) {
                                phase = Phase.FAILED;
                                termination.completeExceptionally(error);
                            } else {
                                termination.complete(null);
                            }
                        });
        this.channel = ModelChannel.of(config.connection(), config.run());
        try {
            this.follower =
                    ModelFollower.start(
                            channel,
                            Optional.empty(),
                            (artifact, versions) -> slot.install(loader.load(artifact, versions)),
                            Duration.ofMillis(500),
                            Optional.of(StageName.PREDICTION.id()));
        } catch (RuntimeException e) {
            // The streams client already holds its own clients and threads; free them.
            streams.close(Duration.ofSeconds(10));
            channel.close();
            throw e;
        }
        this.starter = new Thread(this::startWhenModelArrives, "rwml-prediction-starter");
        this.starter.setDaemon(true);
        this.starter.start();
    }

    /**
     * Starts the stage: follows the models topic at once and starts consuming transitions once
     * version 0 is loaded. Close it to stop.
     */
    public static PredictionApp start(
            final PredictionConfig config, final MeterRegistry registry, final ModelLoader loader) {
        return new PredictionApp(config, registry, loader, Clock.systemUTC());
    }

    /**
     * Runs the stage as the process's main work (see {@link StageRunner}): returns 0 after SIGTERM
     * or SIGINT, 1 with the reason on stderr when the stage died. Metrics go to Micrometer's global
     * registry, where the command adds its exporter.
     */
    public static int run(final PredictionConfig config) {
        LOG.info("Starting prediction stage of run {} on {}", config.run(), config.connection());
        return StageRunner.run(
                start(config, Metrics.globalRegistry, CheckpointModelLoader.standard()), config);
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

    @Override
    public StageName name() {
        return StageName.PREDICTION;
    }

    @Override
    public CompletableFuture<Void> termination() {
        return termination;
    }

    private void startWhenModelArrives() {
        try {
            while (!slot.awaitFirst(WAIT_LOG_EVERY)) {
                if (closed) {
                    return;
                }
                LOG.info(
                        "Run {}: waiting for model version 0 on {} ({}); no transitions are"
                                + " consumed until it arrives",
                        config.run(),
                        channel.modelsTopic(),
                        follower.status());
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                try (ModelSlot.Lease lease = slot.acquire()) {
                    // Refuse a configuration the model cannot serve before consuming anything.
                    final int context = lease.model().maxContext();
                    LOG.info(
                            "Run {}: prompts get at most {} of the model's {} context tokens,"
                                    + " completions {}",
                            config.run(),
                            config.promptBudget(context),
                            context,
                            config.maxNewTokens());
                    final int promptTokens = config.promptBudget(context);
                    lease.model()
                            .samplingMemory(config.batchSize(), promptTokens, config.sampling())
                            .ifPresent(need -> requireMemory(need, promptTokens));
                }
                try (Admin admin = config.connection().admin()) {
                    StartPositions.seekIfNew(
                            admin,
                            config.applicationId(),
                            config.inputTopic(),
                            config.startFrom(),
                            this::baseLineage,
                            ADMIN_TIMEOUT,
                            config.brokerTimeout());
                }
                LOG.info(
                        "Run {}: model version {} loaded; starting {} stream thread(s)",
                        config.run(),
                        slot.version().orElse(-1),
                        config.streamThreads());
                streams.start();
                phase = Phase.STREAMING;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("Run {}: the prediction stage could not start", config.run(), e);
            phase = Phase.FAILED;
            termination.completeExceptionally(
                    new StageFailedException(
                            "the prediction stage could not start: " + e.getMessage(), e));
        }
    }

    /**
     * Refuses a batch that cannot fit in the memory the device has free beside the loaded model,
     * before anything is consumed, with the estimate and what to lower.
     */
    private void requireMemory(final MemoryEstimate need, final int promptTokens) {
        final String batch =
                "batch.size="
                        + config.batchSize()
                        + " transitions x group.size="
                        + config.sampling().groupSize()
                        + " samples of up to "
                        + promptTokens
                        + " prompt + "
                        + config.maxNewTokens()
                        + " new tokens";
        final Optional<String> shortfall = config.model().shortfall(need);
        if (shortfall.isPresent()) {
            throw new IllegalStateException(
                    "a batch of "
                            + batch
                            + " "
                            + shortfall.get()
                            + ": lower batch.size, group.size, prompt.max.tokens or"
                            + " sampling.max.new.tokens");
        }
        LOG.info("Run {}: a batch of {} {}", config.run(), batch, config.model().headroom(need));
    }

    /** Version 0's lineage, from its manifest on the run's models topic. */
    private List<OffsetRange> baseLineage() {
        try (ModelChannelReader reader =
                new ModelChannelReader(channel, Optional.empty(), ADMIN_TIMEOUT)) {
            final ModelVersion base =
                    reader.manifest(0)
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "start.from=after-base needs version 0's"
                                                            + " manifest on "
                                                            + channel.modelsTopic()
                                                            + ", which has none; set start.from to"
                                                            + " earliest, latest or a time"));
            LOG.info(
                    "Run {}: version 0 was trained on {}; a new group starts after it",
                    config.run(),
                    base.getLineage());
            return base.getLineage();
        }
    }

    /** What the app is doing now. */
    public Phase phase() {
        return phase;
    }

    /** The Kafka Streams state (CREATED while waiting for the first model). */
    public KafkaStreams.State streamsState() {
        return streams.state();
    }

    /** The model slot, whose version is the one serving new batches. */
    public ModelSlot models() {
        return slot;
    }

    /** The stage's meters. */
    public PredictionMetrics metrics() {
        return metrics;
    }

    /** Versions the follower rejected (bad SHA-256, unloadable bytes). */
    public long rejectedModelVersions() {
        return follower.rejectedCount();
    }

    /**
     * Stops consuming, commits the open transaction (buffered transitions stay in the committed
     * buffer and are generated after the next start), stops following and frees the model.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (phase != Phase.FAILED) {
                phase = Phase.CLOSED;
            }
        }
        starter.interrupt();
        // Leaving the group hands the partitions to the remaining or next instance at once,
        // instead of after the session timeout.
        streams.close(
                CloseOptions.groupMembershipOperation(
                                CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(60)));
        follower.close();
        channel.close();
        slot.close();
        loader.close();
        termination.complete(null);
        LOG.info("Prediction stage of run {} closed", config.run());
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
