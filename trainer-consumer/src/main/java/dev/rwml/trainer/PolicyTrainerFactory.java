package dev.rwml.trainer;

import dev.rwml.worldmodel.artifact.VerifiedArtifact;

/** Builds the {@link PolicyTrainer} a trainer resumes with. */
@FunctionalInterface
public interface PolicyTrainerFactory {

    /**
     * Loads the policy to continue training from.
     *
     * @param reference version 0 of the run: the frozen reference of the KL term
     * @param latest the latest published version: the weights training continues from
     */
    PolicyTrainer create(TrainerConfig config, VerifiedArtifact reference, VerifiedArtifact latest);
}
