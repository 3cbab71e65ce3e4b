package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code prompt} of a completion request in any of its four JSON forms: a text, a list of
 * texts, token ids, or a list of token-id lists; a single prompt stays single when written back.
 *
 * @param texts the prompts as texts, or null when they are token ids
 * @param tokenIds the prompts as token ids, or null when they are texts
 * @param batch whether the JSON held a list of prompts rather than one
 */
public record CompletionPrompt(List<String> texts, List<List<Integer>> tokenIds, boolean batch) {

    public CompletionPrompt {
        if ((texts == null) == (tokenIds == null)) {
            throw new IllegalArgumentException("a prompt is either texts or token ids, not both");
        }
        if (!batch && (texts != null ? texts.size() : tokenIds.size()) != 1) {
            throw new IllegalArgumentException("a single prompt holds exactly one prompt");
        }
        texts = texts == null ? null : List.copyOf(texts);
        tokenIds = tokenIds == null ? null : tokenIds.stream().map(List::copyOf).toList();
    }

    /** One prompt as text. */
    public static CompletionPrompt text(final String text) {
        return new CompletionPrompt(List.of(text), null, false);
    }

    /** Several prompts as texts. */
    public static CompletionPrompt texts(final List<String> texts) {
        return new CompletionPrompt(texts, null, true);
    }

    /** One prompt as token ids. */
    public static CompletionPrompt tokens(final int[] tokenIds) {
        return new CompletionPrompt(null, List.of(boxed(tokenIds)), false);
    }

    /** Several prompts as token ids, the form a prediction batch is sent in. */
    public static CompletionPrompt tokenBatch(final List<int[]> prompts) {
        return new CompletionPrompt(
                null, prompts.stream().map(CompletionPrompt::boxed).toList(), true);
    }

    /** How many prompts this holds. */
    public int size() {
        return texts != null ? texts.size() : tokenIds.size();
    }

    /** Whether the prompts are texts (to be tokenized) rather than token ids. */
    public boolean isText() {
        return texts != null;
    }

    /** The prompts' token ids as arrays, in order. */
    public List<int[]> tokenArrays() {
        if (tokenIds == null) {
            throw new IllegalStateException("the prompts are texts; tokenize them first");
        }
        return tokenIds.stream()
                .map(ids -> ids.stream().mapToInt(Integer::intValue).toArray())
                .toList();
    }

    /** Reads any of the four JSON forms. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static CompletionPrompt fromJson(final JsonNode node) {
        if (node.isTextual()) {
            return text(node.asText());
        }
        if (!node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException(
                    "prompt must be a text, a list of texts, token ids or a list of token-id"
                            + " lists, and not empty");
        }
        final JsonNode first = node.get(0);
        if (first.isTextual()) {
            final List<String> texts = new ArrayList<>();
            node.forEach(n -> texts.add(textual(n)));
            return texts(texts);
        }
        if (first.isIntegralNumber()) {
            return new CompletionPrompt(null, List.of(ids(node)), false);
        }
        final List<List<Integer>> batch = new ArrayList<>();
        node.forEach(n -> batch.add(ids(n)));
        return new CompletionPrompt(null, batch, true);
    }

    /** Writes the form this was read in. */
    @JsonValue
    public Object toJson() {
        final List<?> prompts = texts != null ? texts : tokenIds;
        return batch ? prompts : prompts.get(0);
    }

    private static String textual(final JsonNode node) {
        if (!node.isTextual()) {
            throw new IllegalArgumentException("a list of text prompts holds only texts");
        }
        return node.asText();
    }

    private static List<Integer> ids(final JsonNode node) {
        if (!node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException("a token-id prompt is a non-empty list of ints");
        }
        final List<Integer> ids = new ArrayList<>(node.size());
        for (final JsonNode id : node) {
            if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
                throw new IllegalArgumentException(
                        "token ids are non-negative ints, got " + id.toString());
            }
            ids.add(id.intValue());
        }
        return ids;
    }

    private static List<Integer> boxed(final int[] ids) {
        final List<Integer> list = new ArrayList<>(ids.length);
        for (final int id : ids) {
            list.add(id);
        }
        return list;
    }
}
