package dev.rwml.trainer;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RestartPolicy;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.runtime.lifecycle.StageFailedException;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running trainer stage, as {@link TrainerApp#start} built it: the training loop on its own
 * thread, replaced by a fresh loop that resumes from the last committed version when it crashes and
 * the stage's restart policy allows.
 */
public final class TrainerStage implements RunningStage {

    private static final Logger LOG = LoggerFactory.getLogger(TrainerStage.class);

    private final TrainerConfig config;
    private final MeterRegistry meters;
    private final PublishListener listener;
    private final TrainerLoop.Pacing pacing;
    private final RestartPolicy restarts;
    private final CompletableFuture<Long> result = new CompletableFuture<>();
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    private volatile TrainerLoop loop;
    private volatile boolean closed;
    private final Thread thread;

    TrainerStage(
            final TrainerConfig config,
            final MeterRegistry meters,
            final PublishListener listener,
            final TrainerLoop.Pacing pacing) {
        this.config = config;
        this.pacing = pacing;
        this.meters = meters;
        this.listener = listener;
        this.restarts = config.settings().restartPolicy(Clock.systemUTC());
        this.loop = newLoop();
        this.thread = new Thread(this::loopUntilDone, "rwml-trainer-" + config.run());
    }

    /** Starts the loop on the stage's thread. */
    void begin() {
        thread.start();
    }

    private TrainerLoop newLoop() {
        return new TrainerLoop(
                config,
                WorldModelPolicyTrainer.factory(),
                meters,
                FaultHook.NONE,
                listener,
                pacing);
    }

    private void loopUntilDone() {
        while (true) {
            try {
                final long version = loop.run();
                result.complete(version);
                termination.complete(null);
                return;
            } catch (final RuntimeException | Error e) {
                final RestartPolicy.Decision decision = restarts.onCrash(e);
                if (closed || !decision.restart()) {
                    LOG.error("Trainer of run {} failed: {}", config.run(), decision.reason(), e);
                    result.completeExceptionally(e);
                    termination.completeExceptionally(
                            new StageFailedException("trainer stopped: " + e.getMessage(), e));
                    return;
                }
                LOG.warn(
                        "Trainer of run {} failed: {}; {}",
                        config.run(),
                        e.getMessage(),
                        decision.reason());
                LOG.debug("trainer failure", e);
                try {
                    Thread.sleep(decision.delay().toMillis());
                } catch (final InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                synchronized (this) {
                    if (closed) {
                        result.complete(-1L);
                        termination.complete(null);
                        return;
                    }
                    loop = newLoop();
                }
            }
        }
    }

    @Override
    public StageName name() {
        return StageName.TRAINER;
    }

    @Override
    public CompletableFuture<Void> termination() {
        return termination;
    }

    /** The loop running now (a crash replaces it). */
    public TrainerLoop loop() {
        return loop;
    }

    /** Waits until the loop returns; rethrows its failure. */
    public long await() {
        try {
            return result.get();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the trainer runs", e);
        } catch (final ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** Whether the loop stopped (closed, or failed). */
    public boolean stopped() {
        return result.isDone();
    }

    /** Stops the loop at its next poll (work since the last version is dropped) and waits. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        loop.close();
        try {
            thread.join(Duration.ofSeconds(60).toMillis());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
