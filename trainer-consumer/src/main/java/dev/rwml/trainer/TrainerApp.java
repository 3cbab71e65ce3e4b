package dev.rwml.trainer;

import dev.rwml.runtime.lifecycle.RestartPolicy;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.settings.SettingsDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.nio.file.Path;
import java.util.Optional;
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
    public static TrainerStage start(
            final TrainerConfig config,
            final MeterRegistry meters,
            final PublishListener listener) {
        return start(config, meters, listener, TrainerLoop.Pacing.ON_ARRIVAL);
    }

    /**
     * Starts the trainer as {@link #start(TrainerConfig, MeterRegistry, PublishListener)} does,
     * with the given pacing (a replay's rounds).
     */
    public static TrainerStage start(
            final TrainerConfig config,
            final MeterRegistry meters,
            final PublishListener listener,
            final TrainerLoop.Pacing pacing) {
        LOG.info("Trainer of run {}: {}", config.run(), config.model().apply());
        LOG.info(
                "Trainer of run {} starting ({} on {})",
                config.run(),
                config.objective().wireName(),
                config.connection());
        final TrainerStage stage = new TrainerStage(config, meters, listener, pacing);
        stage.begin();
        return stage;
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
