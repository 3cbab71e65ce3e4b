package dev.rwml.runtime.streams;

import dev.rwml.events.PredictionGroup;

/**
 * A value a topology builds from the prediction group it joined: when a processor fails on it, the
 * dead-letter handlers keep that group, as it was on the predictions topic, so it can be sent
 * again.
 */
public interface JoinedPrediction {

    /** The prediction group the value was built from. */
    PredictionGroup prediction();
}
