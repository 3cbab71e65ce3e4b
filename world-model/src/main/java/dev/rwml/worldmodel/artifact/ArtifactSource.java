package dev.rwml.worldmodel.artifact;

/**
 * A run's model versions by number, verified: where a loader fetches the base version that a LoRA
 * adapter version applies to.
 */
@FunctionalInterface
public interface ArtifactSource {

    /**
     * The verified artifact of {@code version}.
     *
     * @throws ArtifactRejectedException when the version does not exist or does not verify
     */
    VerifiedArtifact fetch(long version) throws ArtifactRejectedException;
}
