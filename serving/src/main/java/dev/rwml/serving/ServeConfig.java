package dev.rwml.serving;

import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.settings.HttpAccess;
import dev.rwml.worldmodel.ModelRuntime;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How {@code rwml serve} runs.
 *
 * @param run the run whose versions are served
 * @param version the one version to serve; empty follows the run's latest
 * @param host the address to listen on; a non-loopback one needs an API key
 * @param port the port (0 picks a free one)
 * @param apiKey the key every API request must carry; empty: none
 * @param limits what a request may ask for, and the queue
 * @param runtime where the model runs
 * @param connection the cluster holding the run's models topic
 */
public record ServeConfig(
        String run,
        OptionalLong version,
        String host,
        int port,
        Optional<String> apiKey,
        ServeLimits limits,
        ModelRuntime runtime,
        Connection connection) {

    /** The port served when none is given, vLLM's. */
    public static final int DEFAULT_PORT = 8000;

    public ServeConfig {
        Objects.requireNonNull(run, "run");
        if (run.isBlank()) {
            throw new IllegalArgumentException("give the run to serve with --run");
        }
        if (version.isPresent() && version.getAsLong() < 0) {
            throw new IllegalArgumentException(
                    "--version must be 0 or more, got " + version.getAsLong());
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be in 0..65535, got " + port);
        }
        apiKey = new HttpAccess(host, apiKey).apiKey();
    }

    /** Who may reach the server. */
    public HttpAccess access() {
        return new HttpAccess(host, apiKey);
    }
}
