package dev.rwml.channel.init;

/** Thrown when a run to initialise already has a version 0: a run is one training lineage. */
public final class RunAlreadyInitializedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String run;

    /** The refusal for {@code run}, whose version 0 has artifact digest {@code sha256}. */
    public RunAlreadyInitializedException(final String run, final String sha256) {
        super(
                "run '"
                        + run
                        + "' already has a version 0 (sha256 "
                        + sha256
                        + "); a run is one training lineage and its base model is never"
                        + " replaced: pick a new run name with --run");
        this.run = run;
    }

    /** The run that was already initialised. */
    public String run() {
        return run;
    }
}
