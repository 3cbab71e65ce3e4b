package dev.rwml.scoring.embed;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.util.ArrayList;
import java.util.List;

/**
 * The default embedder: all-MiniLM-L6-v2, quantized, run in-process by ONNX Runtime from the model
 * file shipped inside the langchain4j jar (no download, 384 dimensions).
 */
public final class MiniLmEmbedder implements TextEmbedder {

    /** The name recorded in reward specs. */
    public static final String MODEL_NAME = "all-MiniLM-L6-v2-q";

    private final AllMiniLmL6V2QuantizedEmbeddingModel model;

    /** Loads the model from the classpath (about a second). */
    public MiniLmEmbedder() {
        this.model = new AllMiniLmL6V2QuantizedEmbeddingModel();
    }

    @Override
    public String modelName() {
        return MODEL_NAME;
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        if (texts.isEmpty()) {
            return List.of();
        }
        final List<TextSegment> segments = new ArrayList<>(texts.size());
        for (final String text : texts) {
            if (text.isBlank()) {
                // The scorer decides blank texts itself; the tokenizer has nothing to embed.
                throw new IllegalArgumentException("cannot embed a blank text");
            }
            segments.add(TextSegment.from(text));
        }
        final List<Embedding> embeddings = model.embedAll(segments).content();
        final List<float[]> vectors = new ArrayList<>(embeddings.size());
        for (final Embedding embedding : embeddings) {
            vectors.add(embedding.vector());
        }
        return vectors;
    }
}
