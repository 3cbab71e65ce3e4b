package dev.rwml.scoring.embed;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Wraps an embedder with a bounded Caffeine cache of vectors by text, because observations repeat a
 * lot (the same room, "Nothing happens."); each batch sends only its distinct misses to the model,
 * in one call.
 */
public final class CachingEmbedder implements TextEmbedder {

    private final TextEmbedder delegate;
    private final Cache<String, float[]> cache;

    /**
     * @param delegate the model to call on a miss
     * @param capacity the most texts kept; 0 disables the cache
     */
    public CachingEmbedder(final TextEmbedder delegate, final int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException(
                    "embedding cache capacity must be >= 0 (0 disables it), got " + capacity);
        }
        this.delegate = delegate;
        // Evicting on the calling stream thread keeps the size bound exact after each batch, and
        // keeps the work off the common pool that other libraries share.
        this.cache =
                Caffeine.newBuilder()
                        .maximumSize(capacity)
                        .executor(Runnable::run)
                        .recordStats()
                        .build();
    }

    @Override
    public String modelName() {
        return delegate.modelName();
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        final Map<String, float[]> vectors = cache.getAll(texts, this::embedMisses);
        final List<float[]> out = new ArrayList<>(texts.size());
        for (final String text : texts) {
            out.add(vectors.get(text));
        }
        return List.copyOf(out);
    }

    /** The vectors of a batch's distinct misses, from one call to the model. */
    private Map<String, float[]> embedMisses(final Set<? extends String> misses) {
        final List<String> batch = List.copyOf(misses);
        final List<float[]> vectors = delegate.embedAll(batch);
        if (vectors.size() != batch.size()) {
            throw new EmbeddingException(
                    delegate.modelName()
                            + " returned "
                            + vectors.size()
                            + " vectors for "
                            + batch.size()
                            + " texts");
        }
        final Map<String, float[]> byText = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            byText.put(batch.get(i), vectors.get(i));
        }
        return byText;
    }

    /**
     * The cache's counts so far: hits and misses count distinct texts per batch, and each load is
     * one call to the wrapped model.
     */
    public CacheStats stats() {
        return cache.stats();
    }

    /**
     * Exposes the cache through Micrometer's cache meters ({@code cache.size}, {@code cache.gets}
     * by result, {@code cache.evictions}, {@code cache.load} by result, ...) tagged {@code
     * cache=name} and {@code tags}.
     */
    public void bindTo(final MeterRegistry registry, final String name, final Iterable<Tag> tags) {
        CaffeineCacheMetrics.monitor(registry, cache, name, tags);
    }
}
