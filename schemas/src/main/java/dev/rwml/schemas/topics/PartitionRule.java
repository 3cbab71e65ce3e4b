package dev.rwml.schemas.topics;

/** What a topic's partition count must be for the stages to work. */
public enum PartitionRule {
    /**
     * The same count as {@code rwml.transitions}: joined on the transition id without
     * repartitioning.
     */
    CO_PARTITIONED,
    /** Exactly the declared count (one partition keeps model versions in order). */
    EXACT,
    /** Any count; the declared one is used when the topic is created. */
    ANY
}
