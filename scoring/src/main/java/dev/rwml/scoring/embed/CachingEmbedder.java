package dev.rwml.scoring.embed;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps an embedder with a bounded least-recently-used cache of vectors by text, because
 * observations repeat a lot (the same room, "Nothing happens."); each batch sends only its distinct
 * misses to the model, in one call.
 */
public final class CachingEmbedder implements TextEmbedder {

    private final TextEmbedder delegate;
    private final int capacity;
    private final Map<String, float[]> cache;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong modelCalls = new AtomicLong();

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
        this.capacity = capacity;
        this.cache =
                new LinkedHashMap<>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(final Map.Entry<String, float[]> eldest) {
                        return size() > CachingEmbedder.this.capacity;
                    }
                };
    }

    @Override
    public String modelName() {
        return delegate.modelName();
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        final float[][] out = new float[texts.size()][];
        final Map<String, List<Integer>> missing = new LinkedHashMap<>();
        synchronized (cache) {
            for (int i = 0; i < texts.size(); i++) {
                final String text = texts.get(i);
                final float[] cached = cache.get(text);
                if (cached != null) {
                    out[i] = cached;
                } else {
                    missing.computeIfAbsent(text, t -> new ArrayList<>()).add(i);
                }
            }
        }
        // A repeated text inside one batch is embedded once: the repeats count as hits.
        misses.addAndGet(missing.size());
        hits.addAndGet(texts.size() - missing.size());
        if (!missing.isEmpty()) {
            final List<String> batch = new ArrayList<>(missing.keySet());
            final List<float[]> vectors = delegate.embedAll(batch);
            modelCalls.incrementAndGet();
            if (vectors.size() != batch.size()) {
                throw new EmbeddingException(
                        delegate.modelName()
                                + " returned "
                                + vectors.size()
                                + " vectors for "
                                + batch.size()
                                + " texts");
            }
            synchronized (cache) {
                for (int j = 0; j < batch.size(); j++) {
                    final float[] vector = vectors.get(j);
                    for (final int position : missing.get(batch.get(j))) {
                        out[position] = vector;
                    }
                    if (capacity > 0) {
                        cache.put(batch.get(j), vector);
                    }
                }
            }
        }
        return List.of(out);
    }

    /** Texts answered without embedding them: from the cache or a repeat within the batch. */
    public long hits() {
        return hits.get();
    }

    /** Distinct texts sent to the model. */
    public long misses() {
        return misses.get();
    }

    /** Calls made to the wrapped model. */
    public long modelCalls() {
        return modelCalls.get();
    }

    /** Hits over lookups; 0 before the first lookup. */
    public double hitRate() {
        final long h = hits.get();
        final long total = h + misses.get();
        return total == 0 ? 0 : (double) h / total;
    }

    /** Texts currently cached. */
    public int size() {
        synchronized (cache) {
            return cache.size();
        }
    }
}
