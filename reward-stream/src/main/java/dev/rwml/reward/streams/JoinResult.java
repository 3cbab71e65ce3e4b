package dev.rwml.reward.streams;

import dev.rwml.events.PredictionGroup;
import dev.rwml.events.Transition;
import dev.rwml.runtime.streams.JoinedPrediction;

/**
 * A prediction group with the transition it joined, or with null when no transition arrived within
 * the join window (a left join's unmatched side).
 *
 * @param prediction the prediction group
 * @param transition its transition, or null for a join miss
 */
public record JoinResult(PredictionGroup prediction, Transition transition)
        implements JoinedPrediction {

    /** Whether the join found no transition. */
    public boolean isMiss() {
        return transition == null;
    }
}
