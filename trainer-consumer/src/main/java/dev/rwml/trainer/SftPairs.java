package dev.rwml.trainer;

import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.prompt.SftTarget;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import java.util.Arrays;

/**
 * The WM-SFT pair of a rewarded group, fitted to the model's context. The prompt is the one the
 * prediction stage sampled from, already cut to its prompt budget by dropping the oldest history
 * turns first; the target is {@link SftTarget}'s for the observed next state, the one version 0's
 * init trained on (small model or Hugging Face checkpoint); what does not fit after the prompt is
 * cut from the target's tail, as generation is cut at the context's end.
 */
final class SftPairs {

    /** Observed-state tokens a fitted target keeps at least, after its opening tags. */
    static final int MIN_STATE_TOKENS = 1;

    private SftPairs() {}

    /**
     * A pair of at most {@code maxContext} tokens, or why there is none.
     *
     * @param pair the fitted pair; null when {@code reason} is set
     * @param truncatedTokens target tokens cut from the tail
     * @param reason why the group cannot be trained on; null when it can
     */
    record Fitted(SequenceBatch.Pair pair, int truncatedTokens, String reason) {}

    /**
     * Fits the pair of {@code prompt} and the target of {@code observed} into {@code maxContext}.
     */
    static Fitted fit(
            final GenerationTokenizer tokenizer,
            final int[] prompt,
            final String observed,
            final int maxContext) {
        final int[] target = SftTarget.ids(tokenizer, observed);
        final int room = maxContext - prompt.length;
        if (target.length <= room) {
            return new Fitted(new SequenceBatch.Pair(prompt, target), 0, null);
        }
        final int minimum = tokenizer.encode(SftTarget.OPENING).length + MIN_STATE_TOKENS;
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
