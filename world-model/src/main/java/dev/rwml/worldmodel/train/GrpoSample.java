package dev.rwml.worldmodel.train;

/**
 * One sampled completion to train on.
 *
 * @param prompt prompt token ids
 * @param completion generated token ids
 * @param behaviourLogProbs per completion token, log-probs of the policy that sampled it (at
 *     temperature 1, see {@code Sample})
 * @param advantage the sample's group-relative advantage
 */
public record GrpoSample(
        int[] prompt, int[] completion, float[] behaviourLogProbs, double advantage) {

    public GrpoSample {
        if (completion.length != behaviourLogProbs.length) {
            throw new IllegalArgumentException(
                    "completion has "
                            + completion.length
                            + " tokens but "
                            + behaviourLogProbs.length
                            + " behaviour log-probs");
        }
        if (!Double.isFinite(advantage)) {
            throw new IllegalArgumentException("advantage must be finite, got " + advantage);
        }
    }
}
