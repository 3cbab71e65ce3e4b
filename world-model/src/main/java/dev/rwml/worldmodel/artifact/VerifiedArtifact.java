package dev.rwml.worldmodel.artifact;

import dev.rwml.events.ModelVersion;
import java.util.Objects;

/**
 * A model version whose artifact bytes matched the manifest's size and SHA-256: safe to load.
 *
 * @param manifest the version's manifest as published on {@code rwml.<run>.models}
 * @param bytes the artifact, exactly {@code manifest.artifact.sizeBytes} long
 */
public record VerifiedArtifact(ModelVersion manifest, byte[] bytes) {

    /** Checks the pairing; use {@link #verify} to build one from untrusted bytes. */
    public VerifiedArtifact {
        Objects.requireNonNull(manifest, "manifest");
        Objects.requireNonNull(bytes, "bytes");
    }

    /**
     * Returns the artifact when {@code bytes} match the manifest's size and SHA-256.
     *
     * @throws ArtifactRejectedException with the expected and actual values otherwise
     */
    public static VerifiedArtifact verify(final ModelVersion manifest, final byte[] bytes)
            throws ArtifactRejectedException {
        final long expectedSize = manifest.getArtifact().getSizeBytes();
        if (bytes.length != expectedSize) {
            throw new ArtifactRejectedException(
                    manifest.getRun(),
                    manifest.getVersion(),
                    "size is " + bytes.length + " bytes, manifest says " + expectedSize);
        }
        final String actual = Artifacts.sha256Hex(bytes);
        final String expected = manifest.getArtifact().getSha256();
        if (!actual.equalsIgnoreCase(expected)) {
            throw new ArtifactRejectedException(
                    manifest.getRun(),
                    manifest.getVersion(),
                    "SHA-256 is " + actual + ", manifest says " + expected);
        }
        return new VerifiedArtifact(manifest, bytes);
    }

    /** The run this version belongs to. */
    public String run() {
        return manifest.getRun();
    }

    /** The version number. */
    public long version() {
        return manifest.getVersion();
    }
}
