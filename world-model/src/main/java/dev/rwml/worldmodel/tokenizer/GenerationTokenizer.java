package dev.rwml.worldmodel.tokenizer;

/**
 * What the generator needs of a tokenizer: the padding id, the text of ids, and when a sample is
 * over (an end-of-text id, or the answer's closing {@code </next_state>}).
 */
public interface GenerationTokenizer extends AutoCloseable {

    /** The closing tag of the answer; generation stops once a sample wrote it. */
    String NEXT_STATE_CLOSE = "</next_state>";

    /** Id fed to finished rows and to left padding (never attended to). */
    int padId();

    /** One more than the largest id the tokenizer can produce. */
    int vocabSize();

    /** Text of token ids, special tokens included as written. */
    String decode(int[] ids);

    /** Whether {@code id} ends the text (it is kept in the sample's ids, not in its text). */
    boolean isEnd(int id);

    /**
     * The id a complete answer ends with, as a training target writes it: the end of text (a chat
     * model's end of turn).
     */
    int endId();

    /**
     * Whether the first {@code count} tokens of a sample, the last just drawn, close the answer's
     * {@code </next_state>}.
     */
    boolean closesNextState(int[] tokens, int count);

    /** Token ids of a text; special tokens written in it become their ids. */
    int[] encode(String text);

    /** Frees the native tokenizer. */
    @Override
    void close();
}
