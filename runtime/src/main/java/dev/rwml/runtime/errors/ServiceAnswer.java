package dev.rwml.runtime.errors;

import java.util.Optional;

/**
 * Implemented by exceptions that carry another service's answer (an embedding server's HTTP
 * status): the dead-letter handlers name that answer in the letter's reason, and a refusal of the
 * stage's credentials stops the stage instead of dead-lettering every record alike.
 */
public interface ServiceAnswer {

    /**
     * The dead-letter reason naming the answer, e.g. {@code EMBEDDING_HTTP_400}; empty without one.
     */
    Optional<String> deadLetterReason();

    /** Whether the service refused the caller's credentials. */
    boolean refusedCredentials();
}
