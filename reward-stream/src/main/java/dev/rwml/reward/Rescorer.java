package dev.rwml.reward;

import dev.rwml.scoring.score.RewardSpecTable;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Recomputes the rewards of an existing run's predictions with another reward spec, into a new
 * run's rewards topic, without generating again: the same topology reading {@code
 * rwml.<fromRun>.predictions} (from the beginning, under the new run's application id) joined with
 * {@code rwml.transitions}, writing {@code rwml.<run>.rewards}.
 */
public final class Rescorer {

    private Rescorer() {}

    /**
     * Starts the rescore; it keeps running (and rescoring new predictions of {@code fromRun}) until
     * closed.
     *
     * @param config the new run's settings ({@code run} names the new run)
     * @param fromRun the run whose predictions are rescored
     * @param specs the reward specs to apply
     * @param registry where the meters go
     */
    public static RewardStage start(
            final RewardConfig config,
            final String fromRun,
            final RewardSpecTable specs,
            final MeterRegistry registry) {
        if (fromRun.equals(config.run())) {
            throw new IllegalArgumentException(
                    "a rescore writes a new run: --run must differ from --from-run ("
                            + fromRun
                            + ")");
        }
        return RewardApp.start(config.rescoring(fromRun, specs), registry);
    }
}
