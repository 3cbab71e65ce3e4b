package dev.rwml.schemas.topics;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The tunable parts of the topic catalog.
 *
 * @param partitions partitions of the transitions, predictions and rewards topics (co-partitioned)
 * @param replicationFactor replicas of every topic; empty uses the broker's default
 * @param derivedRetention how long predictions and rewards are kept (they can be recomputed)
 * @param deadLetterRetention how long dead letters are kept
 */
public record CatalogSettings(
        int partitions,
        Optional<Short> replicationFactor,
        Duration derivedRetention,
        Duration deadLetterRetention) {

    public static final int DEFAULT_PARTITIONS = 4;
    public static final Duration DEFAULT_DERIVED_RETENTION = Duration.ofDays(7);
    public static final Duration DEFAULT_DEAD_LETTER_RETENTION = Duration.ofDays(30);

    public CatalogSettings {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        Objects.requireNonNull(replicationFactor, "replicationFactor");
        replicationFactor.ifPresent(
                r -> {
                    if (r < 1) {
                        throw new IllegalArgumentException(
                                "replication factor must be at least 1, was " + r);
                    }
                });
        requirePositive(derivedRetention, "derivedRetention");
        requirePositive(deadLetterRetention, "deadLetterRetention");
    }

    /** Four co-partitioned partitions, the broker's replication factor, default retentions. */
    public static CatalogSettings defaults() {
        return new CatalogSettings(
                DEFAULT_PARTITIONS,
                Optional.empty(),
                DEFAULT_DERIVED_RETENTION,
                DEFAULT_DEAD_LETTER_RETENTION);
    }

    /** These settings with another co-partitioned partition count. */
    public CatalogSettings withPartitions(final int count) {
        return new CatalogSettings(count, replicationFactor, derivedRetention, deadLetterRetention);
    }

    /** These settings with an explicit replication factor. */
    public CatalogSettings withReplicationFactor(final short replicas) {
        return new CatalogSettings(
                partitions, Optional.of(replicas), derivedRetention, deadLetterRetention);
    }

    private static void requirePositive(final Duration value, final String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
