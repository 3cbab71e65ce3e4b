package dev.rwml.worldmodel.artifact;

/**
 * Thrown when a version's artifact cannot be used: its bytes do not match the manifest's size or
 * SHA-256, or its chunks are missing (pruned by retention or never committed).
 */
public final class ArtifactRejectedException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String run;
    private final long version;
    private final String reason;

    /** Creates the exception for one version of one run. */
    public ArtifactRejectedException(final String run, final long version, final String reason) {
        super("model version " + version + " of run '" + run + "' rejected: " + reason);
        this.run = run;
        this.version = version;
        this.reason = reason;
    }

    /** What was wrong, without the version and run. */
    public String reason() {
        return reason;
    }

    /** The run whose version was rejected. */
    public String run() {
        return run;
    }

    /** The rejected version. */
    public long version() {
        return version;
    }
}
