package dev.rwml.filter;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A filter model whose tries are scripted per transition id: the prompt carries the transition's
 * index, and each of the K tries predicts the next entry of its script (cycling).
 */
final class ScriptedModel implements PredictionModel {

    private final Map<String, List<String>> scripts = new HashMap<>();
    private final List<String> ids = new ArrayList<>();
    private final List<String> fallback;
    int sampledTries;

    /** Tries of unscripted transitions predict {@code fallback}. */
    ScriptedModel(final List<String> fallback) {
        this.fallback = fallback;
    }

    /** The tries of one transition predict these states, in order. */
    ScriptedModel script(final String transitionId, final List<String> predictions) {
        scripts.put(transitionId, predictions);
        return this;
    }

    @Override
    public long version() {
        return 0;
    }

    @Override
    public int maxContext() {
        return 512;
    }

    @Override
    public Prompt prompt(final Transition transition, final int maxTokens) {
        ids.add(transition.getTransitionId());
        return new Prompt("prompt", new int[] {ids.size() - 1}, 0, true);
    }

    @Override
    public String decode(final int[] tokenIds) {
        return "";
    }

    @Override
    public List<List<Sample>> sample(
            final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
        final List<List<Sample>> out = new ArrayList<>();
        for (final int[] prompt : prompts) {
            final List<String> script = scripts.getOrDefault(ids.get(prompt[0]), fallback);
            final List<Sample> tries = new ArrayList<>();
            for (int i = 0; i < sampling.groupSize(); i++) {
                final String state = script.get(i % script.size());
                tries.add(
                        new Sample(
                                new int[] {1},
                                new float[] {-1f},
                                "<think></think><next_state>" + state + "</next_state>",
                                Optional.ofNullable(state),
                                Sample.StopReason.NEXT_STATE_CLOSED));
                sampledTries++;
            }
            out.add(tries);
        }
        return out;
    }

    @Override
    public void close() {}
}
