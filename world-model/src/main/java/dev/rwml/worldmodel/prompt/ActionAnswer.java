package dev.rwml.worldmodel.prompt;

import dev.rwml.worldmodel.tokenizer.SpecialTokens;
import java.util.Optional;

/**
 * What an acting answer says: the action after the reasoning ({@code <think>…</think>} followed by
 * the action alone, on one line), or why it holds none. An answer without reasoning tags is the
 * action itself (a chat model that skipped its reasoning). Never throws.
 *
 * @param action the stripped action, empty when the answer holds none
 * @param problem why the answer holds no action, empty when it does
 */
public record ActionAnswer(Optional<String> action, Optional<String> problem) {

    /** Reads an answer; {@code ended} is false when generation stopped at its token limit. */
    public static ActionAnswer parse(final String text, final boolean ended) {
        if (!ended) {
            return invalid("the answer reached its token limit before it ended");
        }
        if (text == null || text.isBlank()) {
            return invalid("the answer is empty");
        }
        if (text.contains(SpecialTokens.NEXT_STATE_OPEN)
                || text.contains(SpecialTokens.NEXT_STATE_CLOSE)) {
            return invalid("the answer is a next-state prediction, not an action");
        }
        final int open = text.lastIndexOf(SpecialTokens.THINK_OPEN);
        final int close = text.lastIndexOf(SpecialTokens.THINK_CLOSE);
        if (open > close) {
            return invalid("the reasoning is never closed (no </think> after <think>)");
        }
        final String action =
                (close < 0 ? text : text.substring(close + SpecialTokens.THINK_CLOSE.length()))
                        .strip();
        if (action.isEmpty()) {
            return invalid("no action after the reasoning");
        }
        final long lines = action.lines().count();
        if (lines > 1) {
            return invalid("the action spans " + lines + " lines, not one");
        }
        return new ActionAnswer(Optional.of(action), Optional.empty());
    }

    private static ActionAnswer invalid(final String problem) {
        return new ActionAnswer(Optional.empty(), Optional.of(problem));
    }
}
