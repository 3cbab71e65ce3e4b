package dev.rwml.prediction;

/**
 * One sampled completion of a prompt.
 *
 * @param text the decoded completion
 * @param predictedNextState the {@code <next_state>} content, null when missing or malformed
 * @param tokenIds the sampled token ids
 * @param logprobs the behaviour log-probability of each sampled token
 */
public record Completion(String text, String predictedNextState, int[] tokenIds, float[] logprobs) {

    /** Checks that every token has its log-probability. */
    public Completion {
        if (tokenIds.length != logprobs.length) {
            throw new IllegalArgumentException(
                    "completion has "
                            + tokenIds.length
                            + " tokens but "
                            + logprobs.length
                            + " log-probabilities");
        }
    }
}
