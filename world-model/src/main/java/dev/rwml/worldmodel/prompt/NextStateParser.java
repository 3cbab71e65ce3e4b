package dev.rwml.worldmodel.prompt;

import dev.rwml.worldmodel.tokenizer.SpecialTokens;
import java.util.Optional;

/**
 * Extracts the predicted next state from a generated text: the content of the last complete {@code
 * <next_state>…</next_state>}. Anything else (no tags, an unclosed tag, tags in the wrong order, a
 * nested opening tag, an empty or null text) gives no prediction; it never throws.
 */
public final class NextStateParser {

    private NextStateParser() {}

    /** The trimmed next-state content, or empty when the text holds no well-formed one. */
    public static Optional<String> parse(final String text) {
        if (text == null || text.isEmpty()) {
            return Optional.empty();
        }
        final int close = text.lastIndexOf(SpecialTokens.NEXT_STATE_CLOSE);
        if (close < 0) {
            return Optional.empty();
        }
        final int open = text.lastIndexOf(SpecialTokens.NEXT_STATE_OPEN, close);
        if (open < 0) {
            return Optional.empty();
        }
        final String content = text.substring(open + SpecialTokens.NEXT_STATE_OPEN.length(), close);
        if (content.contains(SpecialTokens.NEXT_STATE_CLOSE)) {
            return Optional.empty();
        }
        return Optional.of(content.strip());
    }
}
