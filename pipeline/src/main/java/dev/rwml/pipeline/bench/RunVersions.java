package dev.rwml.pipeline.bench;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.events.ModelVersion;
import dev.rwml.runtime.settings.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Reads the committed versions of a model run from the model channel. */
final class RunVersions {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private RunVersions() {}

    /** Every committed manifest of the run, ascending by version; empty when it has none. */
    static List<ModelVersion> of(final Connection connection, final String run) {
        try (ModelChannel channel = ModelChannel.of(connection, run);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), READ_TIMEOUT)) {
            return reader.manifests();
        }
    }
}
