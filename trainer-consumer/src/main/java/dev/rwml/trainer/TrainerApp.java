package dev.rwml.trainer;

import dev.rwml.worldmodel.DjlRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer stage ({@code rwml train --run R}): trains the run's world model on its rewards
 * stream and publishes versions until the JVM is asked to stop.
 */
public final class TrainerApp {

    private static final Logger LOG = LoggerFactory.getLogger(TrainerApp.class);

    private TrainerApp() {}

    /**
     * Trains with the real DJL model until interrupted by a shutdown (Ctrl-C, SIGTERM), with meters
     * on Micrometer's global registry.
     *
     * @return the last committed version
     */
    public static long run(final TrainerConfig config) {
        return run(config, Metrics.globalRegistry);
    }

    /** Like {@link #run(TrainerConfig)}, with meters on {@code meters}. */
    public static long run(final TrainerConfig config, final MeterRegistry meters) {
        final Running running = start(config, meters, PublishListener.NONE);
        final Thread hook =
                new Thread(
                        () -> {
                            running.loop().close();
                            try {
                                running.loop().awaitStopped(Duration.ofSeconds(30));
                            } catch (final InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "rwml-trainer-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return running.await();
    }

    /**
     * Starts the trainer on its own thread and returns at once, for programs that run several
     * stages in one JVM ({@code rwml demo}, {@code rwml replay}); close the handle to stop it.
     *
     * @param listener told after each committed version
     */
    public static Running start(
            final TrainerConfig config,
            final MeterRegistry meters,
            final PublishListener listener) {
        DjlRuntime.configureThreads(config.threads(), 1);
        final TrainerLoop loop =
                new TrainerLoop(
                        config,
                        WorldModelPolicyTrainer.factory(),
                        meters,
                        FaultHook.NONE,
                        listener);
        LOG.info(
                "Trainer of run {} starting ({} on {}, registry {})",
                config.run(),
                config.objective().wireName(),
                config.bootstrapServers(),
                config.schemaRegistryUrl());
        final CompletableFuture<Long> result = new CompletableFuture<>();
        final Thread thread =
                new Thread(
                        () -> {
                            try {
                                result.complete(loop.run());
                            } catch (final RuntimeException | Error e) {
                                LOG.error("Trainer of run {} failed", config.run(), e);
                                result.completeExceptionally(e);
                            }
                        },
                        "rwml-trainer-" + config.run());
        thread.start();
        return new Running(loop, thread, result);
    }

    /**
     * A trainer started by {@link #start}.
     *
     * @param loop the training loop
     * @param thread the thread it runs on
     * @param result completes with the last committed version when the loop returns
     */
    public record Running(TrainerLoop loop, Thread thread, CompletableFuture<Long> result)
            implements AutoCloseable {

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
            loop.close();
            try {
                thread.join(Duration.ofSeconds(60).toMillis());
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@code TrainerApp <run> [trainer.properties]}; {@code RWML_TRAINER_*} environment variables
     * override the file.
     */
    public static void main(final String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException(
                    "usage: TrainerApp <run> [trainer.properties] (RWML_TRAINER_* variables"
                            + " override the file)");
        }
        final Optional<Path> file =
                args.length == 2 ? Optional.of(Path.of(args[1])) : Optional.empty();
        run(TrainerConfig.load(args[0], file, System.getenv()));
    }
}
