package dev.rwml.scoring.group;

import dev.rwml.events.Difficulty;
import dev.rwml.events.NextStateKind;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The paper's too-easy subsampling, judged online from each group's own samples: a group is EASY
 * when at least {@code easyMinPasses} of its samples score above the stricter data-stage threshold
 * of their next-state kind (the paper's tau_d: cos > 0.9 for ALFWorld observations, 0.85 for tau2),
 * on the same similarity the reward uses; an EASY group is kept with probability {@code
 * easyKeepProbability} (the paper's 0.1; without it the paper's ALFWorld score falls from 32.6 to
 * 2.9), decided by a hash of (transitionId, seed) so that a replay or a second instance makes the
 * same decisions. A group no sample passed at the training threshold is HARD (kept or dropped by
 * option); every other group is INFORMATIVE and kept. The paper judges difficulty with a separate
 * filter model and K = 10 tries before training; here the G samples of the policy being trained are
 * the tries.
 *
 * @param easyKeepProbability the chance an EASY group is kept, in [0, 1]
 * @param keepHard whether HARD groups are kept (their advantages are all zero)
 * @param seed mixes into the hash; change it to draw another subsample
 * @param easyThresholds the data-stage similarity threshold per next-state kind
 * @param easyMinPasses samples above it that make a group EASY (the paper's tau_easy, read as "at
 *     least one of the tries passes")
 */
public record SubsamplePolicy(
        double easyKeepProbability,
        boolean keepHard,
        long seed,
        Map<NextStateKind, Double> easyThresholds,
        int easyMinPasses) {

    /** The paper's probability of keeping a too-easy group. */
    public static final double PAPER_EASY_KEEP_PROBABILITY = 0.1;

    /** The paper's data-stage thresholds: 1 - tau_d with tau_d 0.1 (ALFWorld), 0.15 (tau2). */
    public static final Map<NextStateKind, Double> PAPER_EASY_THRESHOLDS =
            Map.of(
                    NextStateKind.TEXT, 0.9,
                    NextStateKind.USER_MESSAGE, 0.85,
                    NextStateKind.TOOL_RESULT, 0.85);

    /** Checks the probability, the thresholds and the pass count. */
    public SubsamplePolicy {
        if (!(easyKeepProbability >= 0 && easyKeepProbability <= 1)) {
            throw new IllegalArgumentException(
                    "easy keep probability must be in [0, 1], got " + easyKeepProbability);
        }
        easyThresholds = Map.copyOf(easyThresholds);
        for (final NextStateKind kind : NextStateKind.values()) {
            final Double threshold = easyThresholds.get(kind);
            if (threshold == null || !(threshold >= 0 && threshold <= 1)) {
                throw new IllegalArgumentException(
                        "easy.threshold needs a threshold in [0, 1] for "
                                + kind
                                + ", got "
                                + threshold);
            }
        }
        if (easyMinPasses < 1) {
            throw new IllegalArgumentException(
                    "easy.min.passes must be at least 1, got " + easyMinPasses);
        }
    }

    /** The paper's policy: its thresholds, one pass makes a group easy, kept with 0.1. */
    public static SubsamplePolicy paperDefaults() {
        return new SubsamplePolicy(PAPER_EASY_KEEP_PROBABILITY, true, 0L, PAPER_EASY_THRESHOLDS, 1);
    }

    /**
     * Parses per-kind thresholds, {@code TEXT=0.9,USER_MESSAGE=0.85}; kinds not named keep the
     * paper's.
     */
    public static Map<NextStateKind, Double> thresholds(final String text) {
        final Map<NextStateKind, Double> thresholds = new EnumMap<>(PAPER_EASY_THRESHOLDS);
        for (final String item : text.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            final String[] parts = item.split("=");
            try {
                thresholds.put(
                        NextStateKind.valueOf(parts[0].trim().toUpperCase(Locale.ROOT)),
                        Double.parseDouble(parts[1].trim()));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "easy.threshold '"
                                + text
                                + "' is invalid: expected KIND=number pairs such as"
                                + " TEXT=0.9,USER_MESSAGE=0.85,TOOL_RESULT=0.85",
                        e);
            }
        }
        return thresholds;
    }

    /**
     * The difficulty of a group: EASY by the data-stage threshold of {@code kind}, else HARD when
     * no reward passed, else INFORMATIVE.
     */
    public Difficulty difficulty(
            final NextStateKind kind, final double[] similarity, final double[] rewards) {
        final double threshold = easyThresholds.get(kind);
        int strict = 0;
        for (final double s : similarity) {
            if (s > threshold) {
                strict++;
            }
        }
        if (strict >= easyMinPasses) {
            return Difficulty.EASY;
        }
        for (final double reward : rewards) {
            if (reward > 0) {
                return Difficulty.INFORMATIVE;
            }
        }
        return Difficulty.HARD;
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
