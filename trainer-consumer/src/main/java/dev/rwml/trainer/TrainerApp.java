package dev.rwml.trainer;

import dev.rwml.worldmodel.DjlRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
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
        DjlRuntime.configureThreads(config.threads(), 1);
        final TrainerLoop loop =
                new TrainerLoop(
                        config,
                        WorldModelPolicyTrainer.factory(),
                        meters,
                        FaultHook.NONE,
                        PublishListener.NONE);
        final Thread hook =
                new Thread(
                        () -> {
                            loop.close();
                            try {
                                loop.awaitStopped(Duration.ofSeconds(30));
                            } catch (final InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "rwml-trainer-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        LOG.info(
                "Trainer of run {} starting ({} on {}, registry {})",
                config.run(),
                config.objective().wireName(),
                config.bootstrapServers(),
                config.schemaRegistryUrl());
        return loop.run();
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
