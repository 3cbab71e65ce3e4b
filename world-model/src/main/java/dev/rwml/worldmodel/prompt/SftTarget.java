package dev.rwml.worldmodel.prompt;

import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.SpecialTokens;
import java.util.Arrays;

/**
 * The SFT targets of the agent's LLM. The world model's, the same for the small model's base init,
 * {@code model init --from-hf --steps}, the trainer's WM-SFT ({@code objective=sft}) and drift
 * measured on text: the token ids of {@code <think></think><next_state>s'</next_state>} for the
 * observed next state s', then the tokenizer's {@link GenerationTokenizer#endId() end id} (a chat
 * model's end of turn).
 *
 * <p>Why this shape: the generator stops a sample at the first end id or once its text closes
 * {@code </next_state>}, so a correct sample is exactly the text part, encoded on its own as the
 * sampler writes it after the prompt. The reasoning block is empty without whitespace, as the
 * prompt's {@link PromptFormat#ANSWER_FORMAT} spells the tags (the small model's {@code <think>}
 * and {@code </think>} are single tokens; a space between them would be one more token no sample
 * needs). The end id comes after the closing tag and nowhere else: the sampler stops at the tag
 * before it, so GRPO's samples never hold it, but a model trained on it also ends its turn after
 * the answer where only the end id stops generation (a version exported with {@code models export
 * --hf} and run by another generator) and is never taught to end before closing the tag.
 *
 * <p>The acting role's behaviour-cloning target has the same shape: {@code <think></think>} and the
 * action, then the end id, which is the only thing that ends an acting answer.
 */
public final class SftTarget {

    /** The tags before the next state: the empty reasoning block and the opening tag. */
    public static final String OPENING =
            SpecialTokens.THINK_OPEN + SpecialTokens.THINK_CLOSE + SpecialTokens.NEXT_STATE_OPEN;

    private SftTarget() {}

    /** The behaviour-cloning target's text before its end id: {@code <think></think>{action}}. */
    public static String actionText(final String action) {
        return SpecialTokens.THINK_OPEN + SpecialTokens.THINK_CLOSE + action;
    }

    /**
     * The acting role's behaviour-cloning target: the ids of {@link #actionText(String)}, then the
     * tokenizer's end id, which is what stops an acting answer.
     */
    public static int[] actionIds(final GenerationTokenizer tokenizer, final String action) {
        return withEnd(tokenizer, actionText(action));
    }

    /** The target's text, {@code <think></think><next_state>{nextState}</next_state>}. */
    public static String text(final String nextState) {
        return OPENING + nextState + SpecialTokens.NEXT_STATE_CLOSE;
    }

    /** The target's token ids: those of {@link #text(String)}, then the tokenizer's end id. */
    public static int[] ids(final GenerationTokenizer tokenizer, final String nextState) {
        return withEnd(tokenizer, text(nextState));
    }

    private static int[] withEnd(final GenerationTokenizer tokenizer, final String target) {
        final int[] text = tokenizer.encode(target);
        final int[] ids = Arrays.copyOf(text, text.length + 1);
        ids[text.length] = tokenizer.endId();
        return ids;
    }
}
