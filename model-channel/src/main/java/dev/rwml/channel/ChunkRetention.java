package dev.rwml.channel;

import dev.rwml.events.ModelVersion;
import java.util.List;
import java.util.Optional;

/**
 * Which version's chunks to delete when a new version is published: the chunk topic is compacted,
 * and the publisher writes tombstones for the chunks of the version that falls out of a window of
 * the newest {@code keepLast} versions, in the same transaction as the new version. Version 0 is
 * never pruned: it is the frozen reference every GRPO step of the run compares against.
 *
 * <p>Exactly one version leaves the window per publish, so a restarted trainer never tombstones a
 * version twice and never misses one (as long as {@code keepLast} stays the same).
 *
 * @param keepLast how many of the newest versions keep their chunks (at least 1: the latest)
 */
public record ChunkRetention(int keepLast) {

    /** Validates the window. */
    public ChunkRetention {
        if (keepLast < 1) {
            throw new IllegalArgumentException(
                    "keepLast must be >= 1 so the latest version stays readable, got " + keepLast);
        }
    }

    /**
     * Returns the version whose chunks to tombstone when {@code newVersion} is published after
     * {@code published} (every earlier manifest of the run, ascending by version).
     */
    public Optional<ModelVersion> toRetire(final List<ModelVersion> published) {
        // With the new version appended the window is the last keepLast entries; the entry just
        // before the window is the one that leaves it now.
        final int leaving = published.size() - keepLast;
        if (leaving < 0) {
            return Optional.empty();
        }
        final ModelVersion candidate = published.get(leaving);
        if (candidate.getVersion() == 0 || candidate.getArtifact().getChunkCount() == 0) {
            return Optional.empty();
        }
        return Optional.of(candidate);
    }
}
