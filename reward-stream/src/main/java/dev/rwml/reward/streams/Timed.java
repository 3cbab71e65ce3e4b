package dev.rwml.reward.streams;

/**
 * A record value with where it came from and whether it arrived after its join window and grace had
 * closed, so the topology can divert late records before the join drops them.
 *
 * @param value the record value
 * @param late true when stream time was already past the record's window and grace
 * @param partition the source partition
 * @param offset the source offset, or -1 when unknown
 * @param <V> the value type
 */
public record Timed<V>(V value, boolean late, int partition, long offset) {}
