package dev.rwml.prediction;

import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.channel.ModelChannel;
import dev.rwml.worldmodel.channel.ModelFollower;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
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
public final class PredictionApp implements AutoCloseable {

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
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Phase phase = Phase.WAITING_FOR_MODEL;
    private volatile boolean closed;

    private PredictionApp(
            final PredictionConfig config,
            final MeterRegistry registry,
            final ModelLoader loader,
            final Clock clock) {
        this.config = config;
        DjlRuntime.configureThreads(config.modelThreads(), 1);
        final TopicCatalog catalog = TopicCatalog.defaults();
        final RunTopics topics = catalog.run(config.run());
        try (Admin admin = Admin.create(adminConfig(config))) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(config.run()));
        }
        final Map<String, String> registryConfig =
                EventSerdes.registryConfig(config.schemaRegistryUrl());
        this.slot = new ModelSlot();
        this.loader = loader;
        this.metrics = new PredictionMetrics(registry, config.run(), slot);
        final Topology topology =
                PredictionTopology.build(
                        config,
                        new PredictionTopology.Wiring(
                                catalog.transitions().name(),
                                topics,
                                catalog.transitions().valueSerde(registryConfig).deserializer(),
                                topics.predictions().valueSerde(registryConfig).serializer(),
                                topics.deadLetters().valueSerde(registryConfig).serializer()),
                        slot,
                        metrics,
                        clock);
        LOG.info("Prediction topology of run {}:\n{}", config.run(), topology.describe());
        this.streams = new KafkaStreams(topology, streamsProperties(config));
        this.streams.setStateListener(
                (now, before) -> {
                    if (now == KafkaStreams.State.ERROR) {
                        phase = Phase.FAILED;
                        stopped.countDown();
                    } else if (now == KafkaStreams.State.NOT_RUNNING) {
                        stopped.countDown();
                    }
                });
        this.streams.setUncaughtExceptionHandler(
                new BoundedRestartHandler(
                        config.maxThreadRestarts(), config.restartWindow(), clock));
        this.channel = new ModelChannel(topics, config.bootstrapServers(), registryConfig);
        try {
            this.follower =
                    ModelFollower.start(
                            channel,
                            Optional.empty(),
                            artifact -> slot.install(loader.load(artifact)),
                            Duration.ofMillis(500));
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
     * Runs the stage until the JVM is asked to stop (Ctrl-C, SIGTERM) or the streams stop on their
     * own; returns the process exit code: 0 after a requested stop, 1 after an error. Metrics go to
     * Micrometer's global registry, where the command adds its exporter.
     */
    public static int run(final PredictionConfig config) {
        LOG.info("Starting prediction stage with {}", config.toMap());
        try (PredictionApp app =
                start(config, Metrics.globalRegistry, CheckpointModelLoader.standard())) {
            final Thread hook = new Thread(app::close, "rwml-prediction-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            app.awaitStop();
            return app.phase() == Phase.FAILED ? 1 : 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /**
     * Runs the stage outside the {@code rwml} command: {@code PredictionApp [config.properties]},
     * with the required settings in the file or in {@code RWML_PREDICTION_RUN}, {@code
     * RWML_PREDICTION_BOOTSTRAP_SERVERS} and {@code RWML_PREDICTION_SCHEMA_REGISTRY_URL}.
     */
    public static void main(final String[] args) {
        if (args.length > 1) {
            throw new IllegalArgumentException(
                    "usage: PredictionApp [config.properties]; settings are documented on"
                            + " PredictionConfig");
        }
        final PredictionConfig config =
                PredictionConfig.load(
                        args.length == 1 ? Path.of(args[0]) : null, System.getenv(), Map.of());
        System.exit(run(config));
    }

    /** Blocks until the app is closed, fails to start, or its streams stop. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
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
                try (Admin admin = Admin.create(adminConfig(config))) {
                    StartPositions.seekIfNew(
                            admin,
                            config.applicationId(),
                            TopicCatalog.TRANSITIONS,
                            config.startFrom(),
                            ADMIN_TIMEOUT);
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
            stopped.countDown();
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
        stopped.countDown();
        LOG.info("Prediction stage of run {} closed", config.run());
    }

    static Properties streamsProperties(final PredictionConfig config) {
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
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
        p.putAll(config.streamsOverrides());
        return p;
    }

    private static Map<String, Object> adminConfig(final PredictionConfig config) {
        final Map<String, Object> admin = new HashMap<>();
        config.streamsOverrides().forEach(admin::put);
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        admin.keySet().retainAll(AdminClientConfig.configNames());
        return admin;
    }
}
