package dev.rwml.runtime.lifecycle;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.runtime.settings.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires a Kafka Streams client into the stage lifecycle, the same for every Streams stage: the
 * {@link RestartPolicy} answers thread crashes (outages waited out, faults restarted a bounded
 * number of times per window), and the returned future completes when the client stops: normally
 * after a close, exceptionally with the last crash when it went to ERROR.
 */
public final class StreamsLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(StreamsLifecycle.class);

    private StreamsLifecycle() {}

    /** The key of a Streams stage's thread count. */
    public static final String STREAM_THREADS = "stream.threads";

    /** The setting of the Kafka Streams state directory, which each Streams stage declares. */
    public static final String STATE_DIR = "state.dir";

    /** Declares {@link #STREAM_THREADS}, which every Streams stage has. */
    public static ConfigDef defineStreamThreads(final ConfigDef def) {
        return def.define(
                STREAM_THREADS,
                ConfigDef.Type.INT,
                1,
                ConfigDef.Range.between(1, 64),
                ConfigDef.Importance.MEDIUM,
                "Kafka Streams threads.");
    }

    /**
     * The settings every Streams stage runs with: the connection, exactly-once v2, its application
     * id and thread count, the processing handler enabled for global state too (Kafka 5.0's
     * default), then the stage's own {@code extra} and the user's {@code overrides} on top.
     */
    public static Properties properties(
            final Connection connection,
            final String applicationId,
            final int streamThreads,
            final Map<String, ?> extra,
            final Map<String, String> overrides) {
        final Map<String, Object> props = new HashMap<>();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        props.putAll(extra);
        props.putAll(overrides);
        return connection.kafkaProperties(props);
    }

    /**
     * How long closing a stage waits for in-flight work to commit; a prediction batch generates
     * inside its transaction, so this covers one batch.
     */
    public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Stops a stage's streams, waiting up to {@link #CLOSE_TIMEOUT} for in-flight work to commit,
     * and leaves the group, so the partitions move to the remaining or next instance at once
     * instead of after the session timeout.
     */
    public static void close(final KafkaStreams streams) {
        streams.close(
                CloseOptions.groupMembershipOperation(
                                CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(CLOSE_TIMEOUT));
    }

    /** Registers the handlers; call before {@code streams.start()}. */
    public static CompletableFuture<Void> watch(
            final KafkaStreams streams, final RestartPolicy policy, final StageName stage) {
        final CompletableFuture<Void> termination = new CompletableFuture<>();
        final AtomicReference<Throwable> lastCrash = new AtomicReference<>();
        streams.setUncaughtExceptionHandler(
                error -> {
                    lastCrash.set(error);
                    final RestartPolicy.Decision decision = policy.onCrash(error);
                    if (!decision.restart()) {
                        if (ErrorPolicy.isAccessFailure(error)) {
                            // The stage's exit message explains it; the trace is for --verbose.
                            LOG.error(
                                    "{} stage stopping: {}; {}",
                                    stage,
                                    reason(error),
                                    decision.reason());
                            LOG.debug("{} stage refused", stage, error);
                        } else {
                            LOG.error("{} stage stopping: {}", stage, decision.reason(), error);
                        }
                        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
                    }
                    LOG.warn(
                            "{} stream thread failed: {}; {}",
                            stage,
                            reason(error),
                            decision.reason());
                    LOG.debug("{} stream thread failure", stage, error);
                    pause(decision.delay());
                    return StreamThreadExceptionResponse.REPLACE_THREAD;
                });
        streams.setStateListener(
                (now, before) -> {
                    if (now == KafkaStreams.State.ERROR) {
                        final Throwable cause = lastCrash.get();
                        termination.completeExceptionally(
                                new StageFailedException(
                                        stage
                                                + " stage stopped: its stream threads died"
                                                + (cause == null ? "" : ": " + reason(cause)),
                                        cause));
                    } else if (now == KafkaStreams.State.NOT_RUNNING) {
                        termination.complete(null);
                    } else if (now == KafkaStreams.State.RUNNING) {
                        policy.onProgress();
                    }
                });
        return termination;
    }

    /** The message of the innermost cause that is not just Kafka Streams' wrapper. */
    static String reason(final Throwable error) {
        Throwable cause = error;
        while (cause instanceof StreamsException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
    }

    private static void pause(final Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
