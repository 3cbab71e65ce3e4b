package dev.rwml.worldmodel.serve;

import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;

/** Turns a verified model artifact from the run's models topic into a servable model. */
@FunctionalInterface
public interface ModelLoader extends AutoCloseable {

    /**
     * Loads the artifact's model; throws when the bytes are not a usable checkpoint, and the
     * follower then keeps the current version. {@code versions} gives the run's other versions (a
     * LoRA adapter's base).
     */
    PredictionModel load(VerifiedArtifact artifact, ArtifactSource versions);

    /** Frees what the loader holds beyond the models it returned; nothing by default. */
    @Override
    default void close() {}
}
