package dev.rwml.worldmodel.generate;

import java.util.Optional;

/**
 * One generated completion.
 *
 * @param tokenIds generated tokens, the stop token included
 * @param logProbs per token, the behaviour log-probability log softmax(logits)[token] of the
 *     model's distribution at temperature 1 without top-p truncation: the same quantity training
 *     recomputes for the GRPO ratio, whatever temperature and top-p drew the sample
 * @param text decoded tokens (special tokens written out, end-of-text left out)
 * @param prediction the parsed {@code <next_state>} content, empty when malformed
 * @param stopReason why generation ended
 */
public record Sample(
        int[] tokenIds,
        float[] logProbs,
        String text,
        Optional<String> prediction,
        StopReason stopReason) {

    /** Why a sample ended. */
    public enum StopReason {
        /** It wrote {@code </next_state>}. */
        NEXT_STATE_CLOSED,
        /** It wrote end-of-text. */
        END_OF_TEXT,
        /** It reached the token limit or the model's context. */
        LENGTH
    }
}
