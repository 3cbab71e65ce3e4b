package dev.rwml.scoring.embed;

import java.util.List;

/**
 * A sentence-embedding model that turns a batch of texts into vectors, so that any model (the
 * bundled MiniLM, a remote Qwen3-Embedding server, ...) can score predictions.
 */
public interface TextEmbedder {

    /** The model's name as recorded in each rewarded group's reward spec. */
    String modelName();

    /**
     * Embeds every text in one call.
     *
     * @param texts the texts, none null
     * @return one vector per text, in the same order
     * @throws EmbeddingException when the model cannot embed the batch
     */
    List<float[]> embedAll(List<String> texts);
}
