package dev.rwml.worldmodel.tokenizer;

import java.util.List;

/** The special tokens every world-model tokenizer carries, in id order. */
public final class SpecialTokens {

    /** End of text: stops generation. */
    public static final String END_OF_TEXT = "<|endoftext|>";

    /** Padding. */
    public static final String PAD = "<|pad|>";

    /** Opens the model's reasoning. */
    public static final String THINK_OPEN = "<think>";

    /** Closes the model's reasoning. */
    public static final String THINK_CLOSE = "</think>";

    /** Opens the predicted next state. */
    public static final String NEXT_STATE_OPEN = "<next_state>";

    /** Closes the predicted next state: stops generation. */
    public static final String NEXT_STATE_CLOSE = "</next_state>";

    /** All of them, in the order the trainer assigns ids 0, 1, 2, ... */
    public static final List<String> ALL =
            List.of(END_OF_TEXT, PAD, THINK_OPEN, THINK_CLOSE, NEXT_STATE_OPEN, NEXT_STATE_CLOSE);

    private SpecialTokens() {}
}
