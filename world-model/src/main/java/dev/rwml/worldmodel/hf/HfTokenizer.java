package dev.rwml.worldmodel.hf;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A checkpoint's own {@code tokenizer.json} through DJL's tokenizer, offline, with no truncation,
 * no padding and no special tokens added implicitly, plus the ids that end a generation ({@code
 * eos_token_id} of {@code config.json} and {@code generation_config.json}).
 */
public final class HfTokenizer implements AutoCloseable {

    /** The tokenizer file inside a checkpoint directory. */
    public static final String FILE = "tokenizer.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HuggingFaceTokenizer tokenizer;
    private final Set<Integer> endIds;

    private HfTokenizer(final HuggingFaceTokenizer tokenizer, final Set<Integer> endIds) {
        this.tokenizer = tokenizer;
        this.endIds = Set.copyOf(endIds);
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
        final HuggingFaceTokenizer hf;
        try {
            hf =
                    HuggingFaceTokenizer.newInstance(
                            file,
                            Map.of(
                                    "addSpecialTokens", "false",
                                    "truncation", "false",
                                    "padding", "false",
                                    "maxLength", Integer.toString(Integer.MAX_VALUE)));
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot load " + file, e);
        }
        final Set<Integer> ends = new LinkedHashSet<>(config.eosTokenIds());
        ends.addAll(generationEosIds(checkpointDir));
        return new HfTokenizer(hf, ends);
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
