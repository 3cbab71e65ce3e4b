package dev.rwml.trainer;

import dev.rwml.events.RewardedGroup;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The model being trained: takes one optimizer step per mini-batch of rewarded groups (GRPO on the
 * sampled predictions, or SFT on the observed next states) and serializes itself as an artifact.
 */
public interface PolicyTrainer extends AutoCloseable {

    /**
     * Why {@code group} cannot be trained on (for example an SFT pair that does not fit the model's
     * context even cut), or empty; the loop dead-letters such a group with this reason instead of
     * stepping on it.
     */
    default Optional<String> unfit(final RewardedGroup group) {
        return Optional.empty();
    }

    /** One optimizer step on {@code miniBatch}; every group passed {@link #unfit}. */
    StepStats step(List<RewardedGroup> miniBatch);

    /** The current weights (and what loading them needs) as the artifact of {@code version}. */
    byte[] checkpoint(long version);

    /** The artifact's format name, recorded in the manifest. */
    String artifactFormat();

    /** The model's configuration, recorded in the manifest. */
    Map<String, String> modelConfig();

    @Override
    void close();
}
