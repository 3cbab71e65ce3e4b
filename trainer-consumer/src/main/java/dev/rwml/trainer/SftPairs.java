package dev.rwml.trainer;

import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.SpecialTokens;
import java.util.Arrays;

/**
 * The WM-SFT pair of a rewarded group, fitted to the model's context. The prompt is the one the
 * prediction stage sampled from, already cut to its prompt budget by dropping the oldest history
 * turns first; what does not fit after it is cut from the target's tail, as generation is cut at
 * the context's end. The target is the paper's {@code <think> </think><next_state>{observed}
 * </next_state>} and the end-of-text token.
 */
final class SftPairs {

    /** Observed-state tokens a fitted target keeps at least, after its opening tags. */
    static final int MIN_STATE_TOKENS = 1;

    private static final String OPENING =
            SpecialTokens.THINK_OPEN
                    + " "
                    + SpecialTokens.THINK_CLOSE
                    + SpecialTokens.NEXT_STATE_OPEN;

    private SftPairs() {}

    /**
     * A pair of at most {@code maxContext} tokens, or why there is none.
     *
     * @param pair the fitted pair; null when {@code reason} is set
     * @param truncatedTokens target tokens cut from the tail
     * @param reason why the group cannot be trained on; null when it can
     */
    record Fitted(SequenceBatch.Pair pair, int truncatedTokens, String reason) {}

    /** The target tokens: opening tags, the observed state, the closing tag and end of text. */
    static int[] target(final GenerationTokenizer tokenizer, final String observed) {
        final int[] text = tokenizer.encode(OPENING + observed + SpecialTokens.NEXT_STATE_CLOSE);
        final int[] ids = Arrays.copyOf(text, text.length + 1);
        ids[text.length] = tokenizer.endId();
        return ids;
    }

    /**
     * Fits the pair of {@code prompt} and the target of {@code observed} into {@code maxContext}.
     */
    static Fitted fit(
            final GenerationTokenizer tokenizer,
            final int[] prompt,
            final String observed,
            final int maxContext) {
        final int[] target = target(tokenizer, observed);
        final int room = maxContext - prompt.length;
        if (target.length <= room) {
            return new Fitted(new SequenceBatch.Pair(prompt, target), 0, null);
        }
        final int minimum = tokenizer.encode(OPENING).length + MIN_STATE_TOKENS;
        if (room < minimum) {
            return new Fitted(
                    null,
                    0,
                    "the SFT pair does not fit the model's context of "
                            + maxContext
                            + " tokens: the prompt has "
                            + prompt.length
                            + ", leaving "
                            + Math.max(0, room)
                            + " for a target that needs at least "
                            + minimum
                            + " (its opening tags and "
                            + MIN_STATE_TOKENS
                            + " state token); lower the prediction stage's prompt.max.tokens");
        }
        return new Fitted(
                new SequenceBatch.Pair(prompt, Arrays.copyOf(target, room)),
                target.length - room,
                null);
    }
}
