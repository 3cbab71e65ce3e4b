package dev.rwml.trainer;

import dev.rwml.events.RewardedGroup;
import java.util.List;
import java.util.Map;

/**
 * The model being trained: takes one optimizer step per mini-batch of rewarded groups (GRPO on the
 * sampled predictions, or SFT on the observed next states) and serializes itself as an artifact.
 */
public interface PolicyTrainer extends AutoCloseable {

    /** One optimizer step on {@code miniBatch}. */
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
