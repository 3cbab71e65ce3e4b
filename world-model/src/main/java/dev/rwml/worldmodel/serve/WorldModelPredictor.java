package dev.rwml.worldmodel.serve;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Generator;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.List;

/**
 * The DJL world model of one version behind {@link PredictionModel}: the paper's prompt format over
 * a {@link PromptView} (which has no next observation), and batched G-sample generation with a KV
 * cache.
 */
public final class WorldModelPredictor implements PredictionModel {

    private final long version;
    private final TransformerLM model;
    private final WorldModelTokenizer tokenizer;
    private final PromptFormat format;
    private final Generator generator;

    /** Wraps a loaded model and its tokenizer; closing this closes both. */
    public WorldModelPredictor(
            final long version,
            final TransformerLM model,
            final WorldModelTokenizer tokenizer,
            final PromptFormat format) {
        this.version = version;
        this.model = model;
        this.tokenizer = tokenizer;
        this.format = format;
        this.generator = new Generator(model, tokenizer);
    }

    @Override
    public long version() {
        return version;
    }

    @Override
    public int maxContext() {
        return model.config().maxContext();
    }

    @Override
    public Prompt prompt(final Transition transition, final int maxTokens) {
        // Keep one token of the context for generation: a prompt filling it could not be answered.
        final int budget = Math.min(maxTokens, model.config().maxContext() - 1);
        return format.build(PromptView.of(transition), tokenizer, budget);
    }

    @Override
    public String decode(final int[] tokenIds) {
        return tokenizer.decode(tokenIds);
    }

    @Override
    public List<List<Sample>> sample(
            final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
        return generator.generate(
                prompts,
                sampling.groupSize(),
                new SamplingParams(
                        sampling.temperature(), sampling.topP(), sampling.maxNewTokens(), seed));
    }

    @Override
    public void close() {
        model.close();
        tokenizer.close();
    }
}
