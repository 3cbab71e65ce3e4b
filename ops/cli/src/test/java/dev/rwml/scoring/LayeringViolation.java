package dev.rwml.scoring;

import dev.rwml.reward.RewardConfig;

/**
 * A scoring class that uses the reward stage, against the layers: {@code LayeringTest} checks that
 * its rule reports this. Test code only, never imported as main code.
 */
public final class LayeringViolation {

    private LayeringViolation() {}

    /** The stage's settings, which a library must not know. */
    public static Object settings() {
        return RewardConfig.DEFINITION;
    }
}
