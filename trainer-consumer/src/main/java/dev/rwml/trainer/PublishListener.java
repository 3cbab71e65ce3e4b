package dev.rwml.trainer;

import dev.rwml.events.ModelVersion;
import java.util.List;

/** Told after each version and its input offsets were committed together. */
@FunctionalInterface
public interface PublishListener {

    /** Ignores every version. */
    PublishListener NONE = (manifest, trainedTransitionIds) -> {};

    /**
     * A version was committed.
     *
     * @param manifest the committed manifest
     * @param trainedTransitionIds the groups trained since the parent version, in training order
     */
    void published(ModelVersion manifest, List<String> trainedTransitionIds);
}
