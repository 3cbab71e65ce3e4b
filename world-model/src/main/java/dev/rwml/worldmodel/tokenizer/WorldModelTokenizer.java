package dev.rwml.worldmodel.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;

/**
 * The small model's tokenizer: a {@code tokenizer.json} ({@link TokenizerJson}; ours from {@link
 * BpeTrainer} or a real LLM's) that knows the ids of the world model's special tokens.
 */
public final class WorldModelTokenizer implements GenerationTokenizer {

    private final String json;
    private final TokenizerJson tokenizer;
    private final int vocabSize;
    private final int endOfText;
    private final int pad;
    private final int nextStateClose;

    private WorldModelTokenizer(
            final String json, final TokenizerJson tokenizer, final int vocabSize) {
        this.json = json;
        this.tokenizer = tokenizer;
        this.vocabSize = vocabSize;
        this.endOfText = requireSingle(SpecialTokens.END_OF_TEXT);
        this.nextStateClose = requireSingle(SpecialTokens.NEXT_STATE_CLOSE);
        final int padId = singleIdOrMinus(SpecialTokens.PAD);
        this.pad = padId >= 0 ? padId : endOfText;
    }

    /**
     * Loads a {@code tokenizer.json} text. It must know {@code <|endoftext|>} and {@code
     * </next_state>} as single tokens (add them as added tokens to a real LLM's tokenizer).
     */
    public static WorldModelTokenizer fromJson(final String tokenizerJson) {
        final int vocab = vocabSizeOf(tokenizerJson);
        final TokenizerJson hf = TokenizerJson.parse(tokenizerJson);
        return new WorldModelTokenizer(tokenizerJson, hf, vocab);
    }

    @Override
    public int[] encode(final String text) {
        return tokenizer.encode(text);
    }

    @Override
    public String decode(final int[] ids) {
        return tokenizer.decode(ids);
    }

    /** One more than the largest id the tokenizer can produce. */
    @Override
    public int vocabSize() {
        return vocabSize;
    }

    /** Id of {@code <|endoftext|>}. */
    @Override
    public int endId() {
        return endOfText;
    }

    /** Id used for padding ({@code <|pad|>}, or end-of-text when the tokenizer has none). */
    @Override
    public int padId() {
        return pad;
    }

    @Override
    public boolean isEnd(final int id) {
        return id == endOfText;
    }

    @Override
    public boolean closesNextState(final int[] tokens, final int count) {
        return tokens[count - 1] == nextStateClose;
    }

    /** Id of {@code </next_state>}. */
    public int nextStateCloseId() {
        return nextStateClose;
    }

    /** The {@code tokenizer.json} text this tokenizer was loaded from. */
    public String toJson() {
        return json;
    }

    @Override
    public void close() {
        tokenizer.close();
    }

    private int requireSingle(final String token) {
        final int id = singleIdOrMinus(token);
        if (id < 0) {
            throw new IllegalArgumentException(
                    "tokenizer.json does not encode "
                            + token
                            + " as one token: add it to added_tokens (special: true)");
        }
        return id;
    }

    private int singleIdOrMinus(final String token) {
        final int[] ids = encode(token);
        return ids.length == 1 ? ids[0] : -1;
    }

    private static int vocabSizeOf(final String tokenizerJson) {
        final JsonNode root;
        try {
            root = new ObjectMapper().readTree(tokenizerJson);
        } catch (final IOException e) {
            throw new IllegalArgumentException("tokenizer.json is not valid JSON", e);
        }
        int max = -1;
        final JsonNode vocab = root.path("model").path("vocab");
        if (vocab.isObject()) {
            final Iterator<JsonNode> it = vocab.elements();
            while (it.hasNext()) {
                max = Math.max(max, it.next().asInt());
            }
        } else if (vocab.isArray()) {
            max = vocab.size() - 1; // Unigram models list [piece, score] pairs by id
        }
        for (final JsonNode added : root.path("added_tokens")) {
            max = Math.max(max, added.path("id").asInt());
        }
        if (max < 0) {
            throw new IllegalArgumentException("tokenizer.json has no model.vocab");
        }
        return max + 1;
    }
}
