package dev.rwml.prediction;

import dev.rwml.events.Transition;
import java.util.List;

/**
 * One loaded world-model version as the prediction stage uses it: builds the prompt of a transition
 * from what the agent saw before acting, and samples G completions per prompt in one batch.
 */
public interface PredictionModel extends AutoCloseable {

    /** The version number this model was published as. */
    long version();

    /**
     * The prompt text for a transition: task, history, observation and action; never the next
     * observation.
     */
    String promptText(Transition transition);

    /** The token ids of a prompt text. */
    int[] encode(String promptText);

    /** Samples {@code sampling.groupSize()} completions for each prompt, in order. */
    List<List<Completion>> sample(List<int[]> prompts, SamplingSettings sampling);

    /** Frees the model's native memory; called once no batch uses this version any more. */
    @Override
    void close();
}
