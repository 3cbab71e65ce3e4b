package dev.rwml.reward.group;

import dev.rwml.events.Difficulty;
import java.nio.charset.StandardCharsets;

/**
 * Too-easy subsampling: a group every sample passed is kept with probability {@code
 * easyKeepProbability} (the paper's 0.1; without it the paper's ALFWorld score falls from 32.6 to
 * 2.9), decided by a hash of (transitionId, seed) so that a replay or a second instance makes the
 * same decisions; groups no sample passed are kept or dropped by option.
 *
 * @param easyKeepProbability the chance an EASY group is kept, in [0, 1]
 * @param keepHard whether HARD groups are kept (their advantages are all zero)
 * @param seed mixes into the hash; change it to draw another subsample
 */
public record SubsamplePolicy(double easyKeepProbability, boolean keepHard, long seed) {

    /** The paper's probability of keeping a too-easy group. */
    public static final double PAPER_EASY_KEEP_PROBABILITY = 0.1;

    /** Checks the probability. */
    public SubsamplePolicy {
        if (!(easyKeepProbability >= 0 && easyKeepProbability <= 1)) {
            throw new IllegalArgumentException(
                    "easy keep probability must be in [0, 1], got " + easyKeepProbability);
        }
    }

    /** The paper's policy: EASY kept with probability 0.1, HARD kept, seed 0. */
    public static SubsamplePolicy paperDefaults() {
        return new SubsamplePolicy(PAPER_EASY_KEEP_PROBABILITY, true, 0L);
    }

    /** Decides whether the group of this transition is kept. */
    public KeepDecision decide(final String transitionId, final Difficulty difficulty) {
        return switch (difficulty) {
            case INFORMATIVE -> KeepDecision.INFORMATIVE;
            case HARD -> keepHard ? KeepDecision.HARD_KEPT : KeepDecision.HARD_DROPPED;
            case EASY ->
                    unitHash(transitionId, seed) < easyKeepProbability
                            ? KeepDecision.EASY_SAMPLED
                            : KeepDecision.EASY_DROPPED;
        };
    }

    /**
     * A number in [0, 1) that depends only on the id and the seed: FNV-1a over the UTF-8 bytes,
     * then the SplitMix64 finaliser so that similar ids land far apart.
     */
    public static double unitHash(final String transitionId, final long seed) {
        long h = 0xcbf29ce484222325L ^ seed;
        for (final byte b : transitionId.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h += 0x9e3779b97f4a7c15L;
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        h ^= h >>> 31;
        return (h >>> 11) * 0x1.0p-53;
    }
}
