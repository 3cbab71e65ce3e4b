package dev.rwml.prediction;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how the prediction stage samples when {@code sampler=remote}.
 *
 * @param server the server's root (no {@code /v1}), e.g. {@code http://gpu-box:8000}
 * @param apiKey sent as a bearer token, or empty
 * @param model the name the server serves the run's base (or, for {@code rwml serve}, the run) as
 * @param adapterDir where LoRA versions are written for the server to load, if the run has them
 * @param timeout the limit of one call
 */
public record RemoteSamplerSettings(
        URI server,
        Optional<String> apiKey,
        String model,
        Optional<Path> adapterDir,
        Duration timeout) {

    /** The limit of one call unless {@code sampler.timeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

    public RemoteSamplerSettings {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(adapterDir, "adapterDir");
        Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * The settings of {@code sampler.url}, the key in the variable {@code apiKeyEnv} (none when
     * blank), the model name, the adapter directory and the timeout.
     *
     * @throws IllegalArgumentException when the URL is missing or not http(s), or the variable is
     *     named but unset
     */
    public static RemoteSamplerSettings of(
            final String url,
            final String apiKeyEnv,
            final String model,
            final Optional<Path> adapterDir,
            final Duration timeout) {
        String base = url.strip();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        if (base.endsWith("/v1")) {
            base = base.substring(0, base.length() - 3);
        }
        if (!base.startsWith("http://") && !base.startsWith("https://")) {
            throw new IllegalArgumentException(
                    "sampler=remote needs sampler.url, the inference server's http:// or https://"
                            + " address (e.g. http://gpu-box:8000), got '"
                            + url
                            + "'");
        }
        Optional<String> key = Optional.empty();
        if (!apiKeyEnv.isBlank()) {
            final String value = System.getenv(apiKeyEnv);
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(
                        "sampler.api.key.env names "
                                + apiKeyEnv
                                + ", which is not set: export the server's API key in it");
            }
            key = Optional.of(value);
        }
        return new RemoteSamplerSettings(URI.create(base), key, model, adapterDir, timeout);
    }
}
