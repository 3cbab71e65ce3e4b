package dev.rwml.worldmodel.artifact;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.TrainingCounters;
import java.util.Random;

/** Manifests and artifacts for the channel's tests. */
public final class ChannelFixtures {

    private ChannelFixtures() {}

    /** A manifest of {@code version} without its artifact reference. */
    public static ModelVersion.Builder manifest(final String run, final long version) {
        return ModelVersion.newBuilder()
                .setRun(run)
                .setVersion(version)
                .setParentVersion(version == 0 ? null : version - 1)
                .setCreatedAt(java.time.Instant.ofEpochMilli(1_700_000_000_000L + version))
                .setObjective(version == 0 ? "init" : "grpo")
                .setCounters(TrainingCounters.newBuilder().build());
    }

    /** A complete manifest whose artifact claims {@code chunkCount} chunks of the given bytes. */
    public static ModelVersion published(
            final String run, final long version, final int chunkCount) {
        return manifest(run, version)
                .setArtifact(
                        ArtifactRef.newBuilder()
                                .setFormat("test")
                                .setSizeBytes(10)
                                .setSha256("00")
                                .setChunkCount(chunkCount)
                                .setChunkPartition(0)
                                .setFirstChunkOffset(chunkCount == 0 ? -1 : version * 10)
                                .setUri(chunkCount == 0 ? "file:///tmp/x" : null)
                                .build())
                .build();
    }

    /** Deterministic pseudo-random bytes, different per seed. */
    public static byte[] artifact(final int size, final long seed) {
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
