package dev.rwml.runtime.lifecycle;

import dev.rwml.runtime.StageName;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.KafkaStreams;
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
                        LOG.error("{} stage stopping: {}", stage, decision.reason(), error);
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
