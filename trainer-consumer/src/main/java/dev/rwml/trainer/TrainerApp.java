package dev.rwml.trainer;

import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.RestartPolicy;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.runtime.lifecycle.StageFailedException;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.settings.SettingsDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer stage ({@code rwml train --run R}): trains the run's world model on its rewards
 * stream and publishes versions until it is stopped.
 */
public final class TrainerApp {

    private static final Logger LOG = LoggerFactory.getLogger(TrainerApp.class);

    private TrainerApp() {}

    /**
     * Runs the trainer as the process's main work (see {@link StageRunner}), with meters on
     * Micrometer's global registry: returns 0 after SIGTERM or SIGINT, 1 with the reason on stderr
     * when it died.
     */
    public static int run(final TrainerConfig config) {
        return StageRunner.run(start(config, Metrics.globalRegistry, PublishListener.NONE), config);
    }

    /**
     * Starts the trainer on its own thread and returns at once; close the handle to stop it. A
     * crash of the loop is answered by the stage's {@link RestartPolicy}: a new loop resumes from
     * the last committed version.
     *
     * @param listener told after each committed version
     */
    public static Running start(
            final TrainerConfig config,
            final MeterRegistry meters,
            final PublishListener listener) {
        LOG.info("Trainer of run {}: {}", config.run(), config.model().apply());
        LOG.info(
                "Trainer of run {} starting ({} on {})",
                config.run(),
                config.objective().wireName(),
                config.connection());
        final Running running = new Running(config, meters, listener);
        final Thread thread = new Thread(running::loopUntilDone, "rwml-trainer-" + config.run());
        running.thread = thread;
        thread.start();
        return running;
    }

    /** A trainer started by {@link #start}. */
    public static final class Running implements RunningStage {
        private final TrainerConfig config;
        private final MeterRegistry meters;
        private final PublishListener listener;
        private final RestartPolicy restarts;
        private final CompletableFuture<Long> result = new CompletableFuture<>();
        private final CompletableFuture<Void> termination = new CompletableFuture<>();
        private volatile TrainerLoop loop;
        private volatile boolean closed;
        private Thread thread;

        private Running(
                final TrainerConfig config,
                final MeterRegistry meters,
                final PublishListener listener) {
            this.config = config;
            this.meters = meters;
            this.listener = listener;
            this.restarts = config.settings().restartPolicy(Clock.systemUTC());
            this.loop = newLoop();
        }

        private TrainerLoop newLoop() {
            return new TrainerLoop(
                    config, WorldModelPolicyTrainer.factory(), meters, FaultHook.NONE, listener);
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
                        LOG.error(
                                "Trainer of run {} failed: {}", config.run(), decision.reason(), e);
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

    /**
     * {@code TrainerApp [trainer.properties]}; {@code RWML_TRAINER_*} environment variables
     * override the file.
     */
    public static void main(final String[] args) {
        if (args.length > 1) {
            throw new IllegalArgumentException(
                    "usage: TrainerApp [trainer.properties] (RWML_TRAINER_* variables override the"
                            + " file; `rwml train --help-config` lists the settings)");
        }
        final Optional<Path> file =
                args.length == 1 ? Optional.of(Path.of(args[0])) : Optional.empty();
        System.exit(run(TrainerConfig.load(SettingsDefinition.Sources.fileAndEnvironment(file))));
    }
}
