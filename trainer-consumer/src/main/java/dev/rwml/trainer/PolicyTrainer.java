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
     * Why {@code group} cannot be trained on (a token id outside the model's vocabulary, a sequence
     * longer than its context, an SFT pair that does not fit even cut), or empty; the loop
     * dead-letters such a group with this reason as it reads it, whether it would be trained or
     * passed over, instead of stepping on it.
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
