package dev.rwml.scoring;

import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.embed.MiniLmEmbedder;
import dev.rwml.scoring.embed.OpenAiEmbedder;
import dev.rwml.scoring.embed.TextEmbedder;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which embedding model scores cosine rewards, and its cache.
 *
 * @param provider {@code minilm} (bundled, offline) or {@code openai} (an OpenAI-compatible server)
 * @param url the server for {@code openai}, e.g. {@code http://gpu-box:8000}
 * @param model the server's model name for {@code openai}, e.g. {@code Qwen/Qwen3-Embedding-8B}
 * @param apiKeyEnv the environment variable holding the server's API key; blank for none
 * @param timeout the limit for one embedding request
 * @param cacheSize the most texts whose vectors are kept; 0 disables the cache
 */
public record EmbeddingSettings(
        String provider,
        String url,
        String model,
        String apiKeyEnv,
        Duration timeout,
        int cacheSize) {

    /** The bundled model. */
    public static final String MINILM = "minilm";

    /** An OpenAI-compatible {@code /v1/embeddings} server. */
    public static final String OPENAI = "openai";

    /** Validates the provider and what it needs. */
    public EmbeddingSettings {
        provider = Objects.requireNonNull(provider, "provider").strip().toLowerCase(Locale.ROOT);
        url = url == null ? "" : url.strip();
        model = model == null ? "" : model.strip();
        apiKeyEnv = apiKeyEnv == null ? "" : apiKeyEnv.strip();
        Objects.requireNonNull(timeout, "timeout");
        if (!provider.equals(MINILM) && !provider.equals(OPENAI)) {
            throw new IllegalArgumentException(
                    "embedding.provider must be minilm or openai, got '" + provider + "'");
        }
        if (provider.equals(OPENAI) && (url.isEmpty() || model.isEmpty())) {
            throw new IllegalArgumentException(
                    "embedding.provider=openai needs embedding.url (e.g. http://host:8000) and"
                            + " embedding.model (e.g. Qwen/Qwen3-Embedding-8B)");
        }
        if (cacheSize < 0) {
            throw new IllegalArgumentException(
                    "embedding.cache.size must be >= 0 (0 disables it), got " + cacheSize);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(
                    "embedding.timeout must be positive, got " + timeout);
        }
    }

    /** The bundled MiniLM with a 50,000-text cache. */
    public static EmbeddingSettings defaults() {
        return new EmbeddingSettings(MINILM, "", "", "", Duration.ofSeconds(30), 50_000);
    }

    /** Creates the model these settings name, wrapped in the cache. */
    public CachingEmbedder create(final Map<String, String> environment) {
        final TextEmbedder model =
                provider.equals(MINILM)
                        ? new MiniLmEmbedder()
                        : new OpenAiEmbedder(
                                url,
                                this.model,
                                apiKeyEnv.isEmpty() ? null : environment.get(apiKeyEnv),
                                timeout);
        return new CachingEmbedder(model, cacheSize);
    }
}
