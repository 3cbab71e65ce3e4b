package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.TokenizerJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A checkpoint's own {@code tokenizer.json} ({@link TokenizerJson}), plus the ids that end a
 * generation ({@code eos_token_id} of {@code config.json} and {@code generation_config.json}).
 */
public final class HfTokenizer implements GenerationTokenizer {

    /** The tokenizer file inside a checkpoint directory. */
    public static final String FILE = "tokenizer.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Tokens decoded to look for the closing tag: more than it can take (one char or more each).
     */
    private static final int CLOSE_WINDOW = 2 * NEXT_STATE_CLOSE.length();

    private final TokenizerJson tokenizer;
    private final Set<Integer> endIds;
    private final int endId;
    private final int vocabSize;
    private final int padId;

    private HfTokenizer(
            final TokenizerJson tokenizer,
            final Set<Integer> endIds,
            final int endId,
            final int vocabSize,
            final int padId) {
        this.tokenizer = tokenizer;
        this.endIds = Set.copyOf(endIds);
        this.endId = endId;
        this.vocabSize = vocabSize;
        this.padId = padId;
    }

    /** Loads the tokenizer of a checkpoint directory. */
    public static HfTokenizer load(final Path checkpointDir, final HfConfig config) {
        final Path file = checkpointDir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(
                    "no "
                            + FILE
                            + " in "
                            + checkpointDir
                            + ": save the checkpoint with its fast tokenizer");
        }
        final TokenizerJson hf = TokenizerJson.load(file);
        final Set<Integer> ends = new LinkedHashSet<>(config.eosTokenIds());
        ends.addAll(generationEosIds(checkpointDir));
        // config.json's eos first: a chat model's end of turn, the end an answer is trained with
        final int end = ends.isEmpty() ? -1 : ends.iterator().next();
        // padding is never attended to: any id does, an end id is the usual choice
        return new HfTokenizer(hf, ends, end, config.vocabSize(), Math.max(end, 0));
    }

    @Override
    public int[] encode(final String text) {
        return tokenizer.encode(text);
    }

    @Override
    public String decode(final int[] ids) {
        return tokenizer.decode(ids);
    }

    /** The model's vocabulary size (the tokenizer's ids are at most that many). */
    @Override
    public int vocabSize() {
        return vocabSize;
    }

    /** An end id, fed to finished rows and padding (never attended to). */
    @Override
    public int padId() {
        return padId;
    }

    @Override
    public boolean isEnd(final int id) {
        return endIds.contains(id);
    }

    /**
     * Whether the sample's text now ends with the closing tag: real tokenizers spell {@code
     * </next_state>} as several tokens, so the last few tokens are decoded and searched.
     */
    @Override
    public boolean closesNextState(final int[] tokens, final int count) {
        final int from = Math.max(0, count - CLOSE_WINDOW);
        return decode(java.util.Arrays.copyOfRange(tokens, from, count)).contains(NEXT_STATE_CLOSE);
    }

    /**
     * The checkpoint's first end id ({@code eos_token_id} of {@code config.json}, else of {@code
     * generation_config.json}).
     *
     * @throws IllegalStateException when the checkpoint names none
     */
    @Override
    public int endId() {
        if (endId < 0) {
            throw new IllegalStateException(
                    "the checkpoint names no eos_token_id in config.json or"
                            + " generation_config.json: a training target needs one to end with");
        }
        return endId;
    }

    /** Every id that ends a generation. */
    public Set<Integer> endIds() {
        return endIds;
    }

    private static List<Integer> generationEosIds(final Path checkpointDir) {
        final Path file = checkpointDir.resolve("generation_config.json");
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        try {
            final JsonNode eos = JSON.readTree(file.toFile()).get("eos_token_id");
            if (eos == null || eos.isNull()) {
                return List.of();
            }
            if (eos.isArray()) {
                final List<Integer> ids = new ArrayList<>();
                eos.forEach(n -> ids.add(n.asInt()));
                return ids;
            }
            return List.of(eos.asInt());
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Frees the native tokenizer. */
    @Override
    public void close() {
        tokenizer.close();
    }
}
