package dev.rwml.prediction;

import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.util.List;

/**
 * Builds a transition's prompt within the token limit: whole, or (by option) without its oldest
 * history turns, or not at all.
 */
final class PromptFitter {

    /** The outcome: token ids and dropped turns, or the reason it cannot fit. */
    record Fit(int[] tokenIds, int droppedTurns, String rejection) {
        boolean fits() {
            return rejection == null;
        }
    }

    private final int maxPromptTokens;
    private final OverLengthPolicy policy;

    PromptFitter(final int maxPromptTokens, final OverLengthPolicy policy) {
        this.maxPromptTokens = maxPromptTokens;
        this.policy = policy;
    }

    Fit fit(final PredictionModel model, final Transition transition) {
        final int[] whole = model.encode(model.promptText(transition));
        if (whole.length <= maxPromptTokens) {
            return new Fit(whole, 0, null);
        }
        if (policy == OverLengthPolicy.DEAD_LETTER) {
            return rejected(whole.length, "prompt.over.length=dead-letter");
        }
        final List<Turn> history = transition.getHistory();
        int[] tokens = whole;
        // Oldest turns go first: the most recent context matters most for the next state.
        for (int drop = 1; drop <= history.size(); drop++) {
            final Transition shorter =
                    Transition.newBuilder(transition)
                            .setHistory(List.copyOf(history.subList(drop, history.size())))
                            .build();
            tokens = model.encode(model.promptText(shorter));
            if (tokens.length <= maxPromptTokens) {
                return new Fit(tokens, drop, null);
            }
        }
        return rejected(tokens.length, "no history left to drop");
    }

    private Fit rejected(final int length, final String why) {
        return new Fit(
                null,
                0,
                "prompt is "
                        + length
                        + " tokens, prompt.max.tokens is "
                        + maxPromptTokens
                        + " ("
                        + why
                        + "); raise prompt.max.tokens or shorten the transition");
    }
}
