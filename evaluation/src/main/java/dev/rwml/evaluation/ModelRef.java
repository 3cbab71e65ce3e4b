package dev.rwml.evaluation;

import java.nio.file.Path;

/**
 * A model to evaluate: a version of a run on the cluster, or an exported checkpoint file.
 *
 * @param label how tables name it, e.g. {@code demo@12}
 * @param run the run
 * @param version the version
 * @param file the exported checkpoint, or null for a version read from the run's models topic
 */
public record ModelRef(String label, String run, long version, Path file) {}
