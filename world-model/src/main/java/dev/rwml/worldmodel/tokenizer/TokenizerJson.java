package dev.rwml.worldmodel.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * A Hugging Face {@code tokenizer.json} through DJL's native tokenizer, offline, the one way both
 * model families tokenize: no truncation, no padding and no special tokens added implicitly, so ids
 * are exactly those of the text (special tokens written in it included).
 */
public final class TokenizerJson implements AutoCloseable {

    private static final Map<String, String> OPTIONS =
            Map.of(
                    "addSpecialTokens", "false",
                    "truncation", "false",
                    "padding", "false",
                    "maxLength", Integer.toString(Integer.MAX_VALUE));

    private final HuggingFaceTokenizer tokenizer;

    private TokenizerJson(final HuggingFaceTokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** Loads a {@code tokenizer.json} file. */
    public static TokenizerJson load(final Path file) {
        try {
            return new TokenizerJson(HuggingFaceTokenizer.newInstance(file, OPTIONS));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot load " + file, e);
        }
    }

    /** Loads a {@code tokenizer.json} text. */
    public static TokenizerJson parse(final String json) {
        try {
            return new TokenizerJson(
                    HuggingFaceTokenizer.newInstance(
                            new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
                            OPTIONS));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot load tokenizer.json", e);
        }
    }

    /** Token ids of a text; special tokens written in it become their ids. */
    public int[] encode(final String text) {
        final long[] ids = tokenizer.encode(text, false, false).getIds();
        final int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = (int) ids[i];
        }
        return out;
    }

    /** Text of token ids, special tokens included as written. */
    public String decode(final int[] ids) {
        final long[] longs = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            longs[i] = ids[i];
        }
        return tokenizer.decode(longs, false);
    }

    /** Frees the native tokenizer. */
    @Override
    public void close() {
        tokenizer.close();
    }
}
