package dev.rwml.prediction;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelFollower;
import dev.rwml.channel.ModelSlot;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.runtime.lifecycle.StageFailedException;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.start.StartPositions;
import dev.rwml.schemas.retry.Backoff;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.serve.ModelLoader;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running prediction stage, as {@link PredictionApp#start} built it: it follows the run's model
 * versions and, once version 0 is loaded (and a batch is known to fit in memory), starts its
 * streams; closing it stops both and frees the model.
 */
public final class PredictionStage implements RunningStage {

    /** What the stage is doing. */
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

    private static final Logger LOG = LoggerFactory.getLogger(PredictionStage.class);
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
    private final CompletableFuture<Void> termination;
    private FlowControl flow;
    private volatile Phase phase = Phase.WAITING_FOR_MODEL;
    private volatile boolean closed;

    PredictionStage(
            final PredictionConfig config,
            final ModelSlot slot,
            final ModelLoader loader,
            final PredictionMetrics metrics,
            final ModelChannel channel,
            final ModelFollower follower,
            final KafkaStreams streams,
            final CompletableFuture<Void> streamsDone) {
        this.config = config;
        this.slot = slot;
        this.loader = loader;
        this.metrics = metrics;
        this.channel = channel;
        this.follower = follower;
        this.streams = streams;
        this.termination = new CompletableFuture<>();
        streamsDone.whenComplete(
                (done, error) -> {
                    if (error != null) {
                        phase = Phase.FAILED;
                        termination.completeExceptionally(error);
                    } else {
                        termination.complete(null);
                    }
                });
        this.starter = new Thread(this::startWhenModelArrives, "rwml-prediction-starter");
        this.starter.setDaemon(true);
    }

    /** Starts waiting for version 0 on its own thread; the streams start once it is loaded. */
    void begin() {
        starter.start();
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
            try (ModelSlot.Lease lease = slot.acquire()) {
                if (lease.model() instanceof RemotePredictionModel remote) {
                    awaitServer(remote);
                }
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
                if (config.flowMaxGroupsAhead() > 0) {
                    flow = FlowControl.start(config, streams);
                }
                phase = Phase.STREAMING;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // The failure ends the stage's termination and whoever waits on it names the cause
            // to the user; the trace goes to the log file.
            LOG.info("Run {}: the prediction stage could not start", config.run(), e);
            phase = Phase.FAILED;
            termination.completeExceptionally(
                    new StageFailedException(
                            "the prediction stage could not start: " + e.getMessage(), e));
        }
    }

    /**
     * Checks the remote sampler's server before anything is consumed, waiting out an outage with
     * backoff; a server that cannot sample the run stops the stage with what to do.
     */
    private void awaitServer(final RemotePredictionModel remote) throws InterruptedException {
        final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        while (true) {
            try {
                remote.requireServerFits();
                return;
            } catch (final SamplerException e) {
                if (!e.isRetriable() || closed) {
                    throw e;
                }
                final Duration wait = backoff.next();
                LOG.warn(
                        "Run {}: the inference server is not answering yet ({}); retrying in {}",
                        config.run(),
                        e.getMessage(),
                        wait);
                Thread.sleep(wait.toMillis());
            }
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

    /** What the stage is doing now. */
    public Phase phase() {
        return phase;
    }

    /** The Kafka Streams state (CREATED while waiting for the first model). */
    public KafkaStreams.State streamsState() {
        return streams.state();
    }

    /** Whether flow control ({@code flow.max.groups.ahead}) holds generation back now. */
    public boolean generationPaused() {
        return streams.isPaused();
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
        final FlowControl started;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (phase != Phase.FAILED) {
                phase = Phase.CLOSED;
            }
            started = flow;
        }
        starter.interrupt();
        if (started != null) {
            started.close();
        }
        StreamsLifecycle.close(streams);
        follower.close();
        channel.close();
        slot.close();
        loader.close();
        termination.complete(null);
        LOG.info("Prediction stage of run {} closed", config.run());
    }
}
