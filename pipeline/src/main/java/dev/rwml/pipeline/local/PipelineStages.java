package dev.rwml.pipeline.local;

import dev.rwml.prediction.GenerationGate;
import dev.rwml.prediction.PredictionApp;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.prediction.PredictionStage;
import dev.rwml.reward.RewardApp;
import dev.rwml.reward.RewardConfig;
import dev.rwml.reward.RewardStage;
import dev.rwml.runtime.lifecycle.RunningStage;
import dev.rwml.trainer.PublishListener;
import dev.rwml.trainer.TrainerApp;
import dev.rwml.trainer.TrainerConfig;
import dev.rwml.trainer.TrainerLoop;
import dev.rwml.trainer.TrainerStage;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The three stages of one run started in this JVM (prediction, reward, trainer), with their meters
 * on one registry; closing stops them in pipeline order.
 */
public final class PipelineStages implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PipelineStages.class);

    private final PredictionConfig predictionConfig;
    private final GenerationGate gate;
    private final MeterRegistry meters;
    private volatile PredictionStage prediction;
    private final RewardStage reward;
    private final TrainerStage trainer;

    private PipelineStages(
            final PredictionConfig predictionConfig,
            final GenerationGate gate,
            final MeterRegistry meters,
            final PredictionStage prediction,
            final RewardStage reward,
            final TrainerStage trainer) {
        this.predictionConfig = predictionConfig;
        this.gate = gate;
        this.meters = meters;
        this.prediction = prediction;
        this.reward = reward;
        this.trainer = trainer;
    }

    /**
     * Starts the trainer, the reward stage and the prediction stage (in that order, so nothing the
     * prediction stage writes waits for a consumer); a failure closes what was started.
     */
    public static PipelineStages start(
            final PredictionConfig prediction,
            final RewardConfig reward,
            final TrainerConfig trainer,
            final MeterRegistry meters,
            final PublishListener listener) {
        return start(
                prediction,
                reward,
                trainer,
                meters,
                listener,
                GenerationGate.unpaced(),
                TrainerLoop.Pacing.ON_ARRIVAL);
    }

    /**
     * Starts the stages paced by rounds: the prediction stage generates what {@code gate} opens,
     * the trainer trains when a round is closed ({@link TrainerLoop#closeRound}), so what they
     * train does not depend on timing.
     */
    public static PipelineStages startInRounds(
            final PredictionConfig prediction,
            final RewardConfig reward,
            final TrainerConfig trainer,
            final MeterRegistry meters,
            final GenerationGate gate) {
        return start(
                prediction,
                reward,
                trainer,
                meters,
                PublishListener.NONE,
                gate,
                TrainerLoop.Pacing.BY_ROUND);
    }

    private static PipelineStages start(
            final PredictionConfig prediction,
            final RewardConfig reward,
            final TrainerConfig trainer,
            final MeterRegistry meters,
            final PublishListener listener,
            final GenerationGate gate,
            final TrainerLoop.Pacing pacing) {
        final TrainerStage trainerStage = TrainerApp.start(trainer, meters, listener, pacing);
        RewardStage rewardStage = null;
        try {
            rewardStage = RewardApp.start(reward, meters);
            final PredictionStage predictionStage =
                    PredictionApp.start(prediction, meters, CheckpointModelLoader.standard(), gate);
            return new PipelineStages(
                    prediction, gate, meters, predictionStage, rewardStage, trainerStage);
        } catch (RuntimeException e) {
            if (rewardStage != null) {
                rewardStage.close();
            }
            trainerStage.close();
            throw e;
        }
    }

    /** The prediction stage now running. */
    public PredictionStage prediction() {
        return prediction;
    }

    /** The reward stage. */
    public RewardStage reward() {
        return reward;
    }

    /** The trainer. */
    public TrainerStage trainer() {
        return trainer;
    }

    /**
     * Stops the prediction stage and starts a new one with the same settings, e.g. after its
     * consumer group's offsets were moved back for another epoch.
     *
     * @param beforeStart runs after the old instance left its group and before the new one starts
     */
    public void restartPrediction(final Runnable beforeStart) {
        prediction.close();
        beforeStart.run();
        prediction =
                PredictionApp.start(
                        predictionConfig, meters, CheckpointModelLoader.standard(), gate);
    }

    /** Which stage stopped on its own (its streams failed, or the trainer returned), if any. */
    public String failure() {
        for (final RunningStage stage : List.<RunningStage>of(trainer, reward, prediction)) {
            if (stage.termination().isDone()) {
                return "the " + stage.name() + " stage stopped (see the log above)";
            }
        }
        return null;
    }

    /** Stops the prediction stage, then the reward stage, then the trainer. */
    @Override
    public void close() {
        closeQuietly("prediction", prediction);
        closeQuietly("reward", reward);
        closeQuietly("trainer", trainer);
    }

    private static void closeQuietly(final String name, final AutoCloseable stage) {
        try {
            stage.close();
        } catch (Exception e) {
            LOG.warn("Closing the {} stage failed: {}", name, e.toString(), e);
        }
    }

    /** The Kafka Streams settings every in-process stage shares: quick commits for a live view. */
    static Map<String, String> streamsTuning() {
        return Map.of("commit.interval.ms", "500");
    }
}
