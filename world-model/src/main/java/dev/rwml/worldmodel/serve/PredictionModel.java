package dev.rwml.worldmodel.serve;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.hf.ChatTemplate;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.Prompt;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One loaded world-model version, as the prediction and filter stages use it: builds the prompt of
 * a transition from what the agent saw before acting, and samples G completions per prompt in one
 * batch.
 */
public interface PredictionModel extends AutoCloseable {

    /** The version number this model was published as. */
    long version();

    /** The longest sequence (prompt and completion together) the model takes, in tokens. */
    int maxContext();

    /**
     * The prompt of a transition within {@code maxTokens}: task, history, observation and action,
     * never the next observation; the oldest history turns are dropped to fit.
     */
    Prompt prompt(Transition transition, int maxTokens);

    /**
     * The acting prompt of a situation within {@code maxTokens}: task, history, observation and the
     * admissible actions, asking for the next action; the oldest history turns are dropped to fit.
     * The same model then acts and predicts.
     *
     * @throws UnsupportedOperationException for a model that only predicts (a test double)
     */
    default Prompt actingPrompt(final ActingView view, final int maxTokens) {
        throw new UnsupportedOperationException(
                getClass().getSimpleName() + " builds no acting prompts");
    }

    /**
     * How many token ids the model takes (0 to this, exclusive), for servers that are sent token
     * ids; empty for a model that does not say (a test double).
     */
    default OptionalInt vocabSize() {
        return OptionalInt.empty();
    }

    /** The decoded text of token ids (for logs and tests). */
    String decode(int[] tokenIds);

    /**
     * The token ids of a text as this model's tokenizer writes them (special tokens written in it
     * become their ids), for servers that take text prompts.
     *
     * @throws UnsupportedOperationException for a model without a tokenizer (a test double)
     */
    default int[] encode(final String text) {
        throw new UnsupportedOperationException(
                getClass().getSimpleName() + " has no tokenizer to encode text with");
    }

    /** The checkpoint's chat template, empty for a model without one (the small model). */
    default Optional<ChatTemplate> chatTemplate() {
        return Optional.empty();
    }

    /**
     * Samples {@code sampling.groupSize()} completions for each prompt, in order; the same seed,
     * prompts and model give the same samples.
     */
    List<List<Sample>> sample(List<int[]> prompts, SamplingSettings sampling, long seed);

    /**
     * What sampling a batch of {@code prompts} prompts of up to {@code promptTokens} tokens needs
     * beyond the loaded weights, or empty for a model that holds no tensors.
     */
    default Optional<MemoryEstimate> samplingMemory(
            final int prompts, final int promptTokens, final SamplingSettings sampling) {
        return Optional.empty();
    }

    /** Frees the model's native memory; called once no batch uses this version any more. */
    @Override
    void close();
}
