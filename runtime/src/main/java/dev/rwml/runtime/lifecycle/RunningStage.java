package dev.rwml.runtime.lifecycle;

import dev.rwml.runtime.StageName;
import java.util.concurrent.CompletableFuture;

/** A stage running in this process: started by its app, awaited and closed by its owner. */
public interface RunningStage extends AutoCloseable {

    /** Which stage it is. */
    StageName name();

    /**
     * Completes when the stage ends by itself: normally when a bounded input is done, exceptionally
     * with the reason it died. A {@link #close} completes it normally.
     */
    CompletableFuture<Void> termination();

    /**
     * Stops the stage: finishes or aborts the open transaction, leaves the consumer group so its
     * partitions move at once, frees the model and the clients. Safe to call more than once.
     */
    @Override
    void close();
}
