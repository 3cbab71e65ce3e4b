package dev.rwml.worldmodel.generate;

import dev.rwml.worldmodel.prompt.NextStateParser;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Function;

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

    /**
     * The sample of a finished completion, built the one way every sampler builds it: the text is
     * {@code decoder}'s text of the ids without a final end-of-text, and the prediction is parsed
     * from that text.
     */
    public static Sample completed(
            final int[] tokenIds,
            final float[] logProbs,
            final StopReason stopReason,
            final Function<int[], String> decoder) {
        final int textLength =
                stopReason == StopReason.END_OF_TEXT ? tokenIds.length - 1 : tokenIds.length;
        final String text = decoder.apply(Arrays.copyOf(tokenIds, Math.max(0, textLength)));
        return new Sample(tokenIds, logProbs, text, NextStateParser.parse(text), stopReason);
    }

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
