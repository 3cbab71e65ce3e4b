package dev.rwml.worldmodel.artifact;

import java.io.IOException;
import java.net.URI;

/**
 * Stores model artifacts too large for the chunk topic outside Kafka; the manifest then carries the
 * returned URI and a chunk count of 0.
 */
public interface ArtifactStore {

    /**
     * Stores the artifact of one version and returns where it lives. Writing the same version twice
     * (a retried publish after a crash) replaces the earlier bytes.
     */
    URI put(String run, long version, byte[] bytes) throws IOException;

    /** Reads back an artifact written by {@link #put}. */
    byte[] open(URI uri) throws IOException;
}
