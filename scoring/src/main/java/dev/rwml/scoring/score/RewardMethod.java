package dev.rwml.scoring.score;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a predicted next state is compared with the observed one. */
public enum RewardMethod {
    /** Cosine similarity of sentence embeddings (the paper's reward for text and user replies). */
    EMBEDDING_COSINE("embedding-cosine", "cosine"),
    /** ROUGE-L F1 over tokens after masking JSON values to their types, rounded to 0.2. */
    ROUGE_L("rouge-l", "rouge"),
    /** 1 when the texts are equal after trimming and collapsing whitespace, else 0. */
    EXACT_MATCH("exact-match", "exact"),
    /** {@link ItemSetF1}: the F1 of listed items as sets, exact match for texts without a list. */
    ITEM_SET_F1("item-set-f1", "items");

    private final String wireName;
    private final String alias;

    RewardMethod(final String wireName, final String alias) {
        this.wireName = wireName;
        this.alias = alias;
    }

    /** The name written in {@code RewardSpecRef.method}. */
    public String wireName() {
        return wireName;
    }

    /** Parses a wire name or its short alias, case-insensitively. */
    public static RewardMethod parse(final String text) {
        final String name = text.strip().toLowerCase(Locale.ROOT);
        for (final RewardMethod method : values()) {
            if (method.wireName.equals(name) || method.alias.equals(name)) {
                return method;
            }
        }
        throw new IllegalArgumentException(
                "unknown reward method '"
                        + text
                        + "'; use one of "
                        + Arrays.stream(values())
                                .map(m -> m.wireName + " (" + m.alias + ")")
                                .collect(Collectors.joining(", ")));
    }
}
