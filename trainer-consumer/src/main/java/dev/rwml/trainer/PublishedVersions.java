package dev.rwml.trainer;

import dev.rwml.events.ModelVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's versions published so far, oldest first: where a trainer resumes (the latest), and what
 * chunk retention may retire; each commit adds one.
 */
final class PublishedVersions {

    private final List<ModelVersion> versions;

    /** The versions read back from the models topic; version 0 at least. */
    PublishedVersions(final List<ModelVersion> published) {
        if (published.isEmpty()) {
            throw new IllegalArgumentException("a run has at least version 0");
        }
        this.versions = new ArrayList<>(published);
    }

    /** The latest version's number. */
    long latest() {
        return versions.get(versions.size() - 1).getVersion();
    }

    /** Every version, oldest first. */
    List<ModelVersion> all() {
        return versions;
    }

    /** A version just committed. */
    void add(final ModelVersion committed) {
        versions.add(committed);
    }
}
