package dev.rwml.runtime.errors;

/**
 * Implemented by exceptions that may mean a dependency is down rather than that the input is bad
 * (an embedding server's 5xx, a timeout): {@link ErrorPolicy} retries those that say so.
 */
public interface Outage {

    /** Whether the same call may succeed later without any change to the input. */
    boolean isRetriable();
}
