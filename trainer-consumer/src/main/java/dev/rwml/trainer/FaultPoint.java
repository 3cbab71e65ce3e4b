package dev.rwml.trainer;

/** Named points of the trainer loop where tests inject crashes. */
public enum FaultPoint {
    /** After an optimizer step, before the next one (nothing of the step is published yet). */
    BETWEEN_STEPS,
    /** Inside the publish transaction, after some but not all chunks of the artifact were sent. */
    BETWEEN_CHUNKS,
    /** Inside the publish transaction, after the chunks and the manifest, before the commit. */
    BEFORE_COMMIT,
    /** Right after a version and its offsets were committed. */
    AFTER_COMMIT
}
