package dev.rwml.scoring.score;

import dev.rwml.scoring.embed.TextEmbedder;
import dev.rwml.scoring.embed.Vectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Scores a group's predicted next states against the observed one with a reward spec; for embedding
 * cosine the observed state and every prediction go to the model in one batch.
 */
public final class SimilarityScorer {

    private static final Pattern SPACES = Pattern.compile("\\s+");

    private final TextEmbedder embedder;

    /**
     * @param embedder the model behind {@link RewardMethod#EMBEDDING_COSINE}
     */
    public SimilarityScorer(final TextEmbedder embedder) {
        this.embedder = Objects.requireNonNull(embedder, "embedder");
    }

    /** The embedding model's name, recorded with cosine rewards. */
    public String embeddingModel() {
        return embedder.modelName();
    }

    /**
     * The similarity of each prediction to the observed state, in [0, 1]; a null prediction (no
     * parsable {@code <next_state>}) scores 0.
     */
    public double[] similarities(
            final RewardSpec spec, final String observed, final List<String> predictions) {
        return switch (spec.method()) {
            case EMBEDDING_COSINE -> cosines(observed, predictions);
            case ROUGE_L -> rouge(observed, predictions);
            case EXACT_MATCH -> exact(observed, predictions);
            case ITEM_SET_F1 -> itemSets(observed, predictions);
        };
    }

    private double[] cosines(final String observed, final List<String> predictions) {
        final double[] scores = new double[predictions.size()];
        final String reference = observed.strip();
        final boolean referenceEmpty = !hasVisibleText(reference);
        final List<String> batch = new ArrayList<>(predictions.size() + 1);
        final int[] slot = new int[predictions.size()];
        if (!referenceEmpty) {
            batch.add(reference);
        }
        for (int i = 0; i < predictions.size(); i++) {
            final String predicted = predictions.get(i);
            slot[i] = -1;
            if (predicted == null) {
                scores[i] = 0;
            } else if (!hasVisibleText(predicted) || referenceEmpty) {
                // The model cannot embed a text without visible characters; two such states are
                // the same state.
                scores[i] = !hasVisibleText(predicted) && referenceEmpty ? 1 : 0;
            } else {
                slot[i] = batch.size();
                batch.add(predicted.strip());
            }
        }
        if (batch.size() > 1) {
            final List<float[]> vectors = embedder.embedAll(batch);
            final float[] observedVector = vectors.get(0);
            for (int i = 0; i < scores.length; i++) {
                if (slot[i] >= 0) {
                    final double cosine = Vectors.cosine(vectors.get(slot[i]), observedVector);
                    scores[i] = Math.max(0, Math.min(1, cosine));
                }
            }
        }
        return scores;
    }

    /**
     * Whether a text has a character an embedding tokenizer keeps: BERT-style tokenizers drop
     * whitespace, control and format characters, so a text of only those embeds to nothing.
     */
    static boolean hasVisibleText(final String text) {
        return text.codePoints()
                .anyMatch(
                        cp ->
                                !Character.isWhitespace(cp)
                                        && !Character.isSpaceChar(cp)
                                        && !Character.isISOControl(cp)
                                        && Character.getType(cp) != Character.FORMAT
                                        && cp != 0xFFFD);
    }

    private static double[] rouge(final String observed, final List<String> predictions) {
        final double[] scores = new double[predictions.size()];
        final List<String> reference = StructureMasker.tokens(observed);
        for (int i = 0; i < predictions.size(); i++) {
            final String predicted = predictions.get(i);
            scores[i] =
                    predicted == null
                            ? 0
                            : RougeL.roundToFifth(
                                    RougeL.f1(StructureMasker.tokens(predicted), reference));
        }
        return scores;
    }

    private static double[] itemSets(final String observed, final List<String> predictions) {
        final double[] scores = new double[predictions.size()];
        for (int i = 0; i < predictions.size(); i++) {
            final String predicted = predictions.get(i);
            scores[i] = predicted == null ? 0 : ItemSetF1.score(observed, predicted);
        }
        return scores;
    }

    private static double[] exact(final String observed, final List<String> predictions) {
        final double[] scores = new double[predictions.size()];
        final String reference = normalize(observed);
        for (int i = 0; i < predictions.size(); i++) {
            final String predicted = predictions.get(i);
            scores[i] = predicted != null && normalize(predicted).equals(reference) ? 1 : 0;
        }
        return scores;
    }

    private static String normalize(final String text) {
        return SPACES.matcher(text.strip()).replaceAll(" ");
    }
}
