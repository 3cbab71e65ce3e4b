package dev.rwml.trainer;

import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.schemas.rules.GroupSize;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The checks a decoded rewarded group must pass before the trainer buffers it: the reward stage
 * writes only groups that pass them, so one that fails came from another program and is
 * dead-lettered, instead of being trained (a NaN log-prob makes the step's loss NaN) or passed over
 * without a word.
 */
final class GroupRules {

    private GroupRules() {}

    /** Why the group is unusable, or null when it is fine. */
    static String invalidReason(final byte[] key, final RewardedGroup group) {
        final String id = group.getTransitionId();
        if (key == null) {
            return "record has no key; rewarded groups are keyed by their transitionId";
        }
        final String keyText = new String(key, StandardCharsets.UTF_8);
        if (!keyText.equals(id)) {
            return "record key '" + keyText + "' differs from transitionId '" + id + "'";
        }
        if (group.getSamples().isEmpty()) {
            return "rewarded group " + id + " has no samples";
        }
        final String size = GroupSize.mismatch(group.getSamples().size(), group.getSampling());
        if (size != null) {
            return "rewarded group " + id + " has " + size;
        }
        for (int s = 0; s < group.getSamples().size(); s++) {
            final RewardedSample sample = group.getSamples().get(s);
            final List<Integer> tokens = sample.getTokenIds();
            final List<Float> logprobs = sample.getLogprobs();
            if (tokens.size() != logprobs.size()) {
                return "rewarded group "
                        + id
                        + " has a sample with "
                        + tokens.size()
                        + " tokens but "
                        + logprobs.size()
                        + " logprobs";
            }
            for (int i = 0; i < logprobs.size(); i++) {
                final float logprob = logprobs.get(i);
                if (!Float.isFinite(logprob) || logprob > 0) {
                    return "rewarded group "
                            + id
                            + " sample "
                            + s
                            + " has a behaviour log-prob at token "
                            + i
                            + " that is not finite and <= 0: "
                            + logprob;
                }
                if (tokens.get(i) < 0) {
                    return "rewarded group "
                            + id
                            + " sample "
                            + s
                            + " has token id "
                            + tokens.get(i);
                }
            }
            if (!Double.isFinite(sample.getAdvantage()) || !Double.isFinite(sample.getReward())) {
                return "rewarded group "
                        + id
                        + " sample "
                        + s
                        + " has reward "
                        + sample.getReward()
                        + " and advantage "
                        + sample.getAdvantage()
                        + "; both must be finite";
            }
        }
        return null;
    }
}
