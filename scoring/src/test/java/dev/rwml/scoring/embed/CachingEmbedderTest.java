package dev.rwml.scoring.embed;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CachingEmbedderTest {

    /** Embeds a text as (length, first char) and records each batch it was asked for. */
    private static final class RecordingEmbedder implements TextEmbedder {
        final List<List<String>> batches = new ArrayList<>();

        @Override
        public String modelName() {
            return "recording";
        }

        @Override
        public List<float[]> embedAll(final List<String> texts) {
            batches.add(List.copyOf(texts));
            final List<float[]> out = new ArrayList<>();
            for (final String text : texts) {
                out.add(new float[] {text.length(), text.charAt(0)});
            }
            return out;
        }
    }

    @Test
    void shouldSendOnlyDistinctMissesInOneCall() {
        final RecordingEmbedder model = new RecordingEmbedder();
        final CachingEmbedder cache = new CachingEmbedder(model, 10);

        final List<float[]> vectors = cache.embedAll(List.of("a", "bb", "a", "ccc"));

        assertThat(model.batches).containsExactly(List.of("a", "bb", "ccc"));
        assertThat(vectors).hasSize(4);
        assertThat(vectors.get(2)).containsExactly(1f, 'a');
        assertThat(vectors.get(3)).containsExactly(3f, 'c');
        // The repeat shares the first occurrence's vector: one lookup per distinct text.
        assertThat(vectors.get(2)).isSameAs(vectors.get(0));
        assertThat(cache.stats().missCount()).isEqualTo(3);
        assertThat(cache.stats().hitCount()).isZero();
    }

    @Test
    void shouldAnswerRepeatedTextsFromTheCache() {
        final RecordingEmbedder model = new RecordingEmbedder();
        final CachingEmbedder cache = new CachingEmbedder(model, 10);
        cache.embedAll(List.of("a", "bb"));

        final List<float[]> vectors = cache.embedAll(List.of("bb", "a"));

        assertThat(model.batches).hasSize(1);
        assertThat(vectors.get(0)).containsExactly(2f, 'b');
        assertThat(cache.stats().hitRate()).isEqualTo(0.5);
        assertThat(cache.stats().loadCount()).isEqualTo(1);
    }

    @Test
    void shouldEvictTheLeastUsedTextWhenFull() {
        final RecordingEmbedder model = new RecordingEmbedder();
        final CachingEmbedder cache = new CachingEmbedder(model, 2);
        final MeterRegistry registry = new SimpleMeterRegistry();
        cache.bindTo(registry, "embeddings", Tags.empty());
        cache.embedAll(List.of("a"));
        cache.embedAll(List.of("b"));
        cache.embedAll(List.of("a"));
        cache.embedAll(List.of("c"));

        cache.embedAll(List.of("a", "b"));

        assertThat(size(registry)).isEqualTo(2);
        assertThat(model.batches.get(model.batches.size() - 1)).containsExactly("b");
    }

    @Test
    void shouldNotCacheWhenCapacityIsZero() {
        final RecordingEmbedder model = new RecordingEmbedder();
        final CachingEmbedder cache = new CachingEmbedder(model, 0);
        final MeterRegistry registry = new SimpleMeterRegistry();
        cache.bindTo(registry, "embeddings", Tags.empty());
        cache.embedAll(List.of("a"));
        cache.embedAll(List.of("a"));

        assertThat(model.batches).hasSize(2);
        assertThat(size(registry)).isZero();
    }

    /** The texts cached, as the bound {@code cache.size} gauge reports them. */
    private static double size(final MeterRegistry registry) {
        return registry.get("cache.size").tag("cache", "embeddings").gauge().value();
    }
}
