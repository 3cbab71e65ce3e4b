package dev.rwml.schemas.topics;

import java.util.List;

/**
 * What {@link TopicAdmin#ensure} did.
 *
 * @param created topics it created
 * @param existing topics that were there already and passed validation
 * @param warnings differences that do not stop the stages (e.g. another retention)
 */
public record EnsureResult(List<String> created, List<String> existing, List<String> warnings) {
    public EnsureResult {
        created = List.copyOf(created);
        existing = List.copyOf(existing);
        warnings = List.copyOf(warnings);
    }
}
