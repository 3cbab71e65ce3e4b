package dev.rwml.worldmodel.serve;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Generator;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.hf.ChatTemplate;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The DJL world model of one version behind {@link PredictionModel}: the paper's prompt over a
 * {@link PromptView} (which has no next observation), as plain text for the small model or through
 * a checkpoint's chat template, and batched G-sample generation with a KV cache.
 */
public final class WorldModelPredictor implements PredictionModel {

    /** Builds the prompt of either role's situation within a token budget. */
    @FunctionalInterface
    public interface PromptBuilder {
        /** The prompt of {@code situation} in at most {@code maxTokens} tokens, if it can fit. */
        Prompt build(PromptFormat.Situation situation, int maxTokens);
    }

    private final long version;
    private final CausalLM model;
    private final GenerationTokenizer tokenizer;
    private final PromptBuilder prompts;
    private final Generator generator;
    private final Runnable release;
    private final Optional<ChatTemplate> chat;

    /** Wraps a small model and its tokenizer with the plain prompt; closing this closes both. */
    public WorldModelPredictor(
            final long version,
            final CausalLM model,
            final WorldModelTokenizer tokenizer,
            final PromptFormat format) {
        this(
                version,
                model,
                tokenizer,
                (view, max) -> format.build(view, tokenizer, max),
                () -> {
                    model.close();
                    tokenizer.close();
                },
                Optional.empty());
    }

    /**
     * Wraps any model, its tokenizer and its prompt builder; closing this runs {@code release},
     * which frees what this version owns (an adapter view leaves its shared base alone); {@code
     * chat} is the checkpoint's chat template, if it has one.
     */
    public WorldModelPredictor(
            final long version,
            final CausalLM model,
            final GenerationTokenizer tokenizer,
            final PromptBuilder prompts,
            final Runnable release,
            final Optional<ChatTemplate> chat) {
        this.version = version;
        this.chat = chat;
        this.model = model;
        this.tokenizer = tokenizer;
        this.prompts = prompts;
        this.generator = new Generator(model, tokenizer);
        this.release = release;
    }

    @Override
    public long version() {
        return version;
    }

    @Override
    public int maxContext() {
        return model.maxContext();
    }

    @Override
    public Prompt prompt(final Transition transition, final int maxTokens) {
        // Keep one token of the context for generation: a prompt filling it could not be answered.
        final int budget = Math.min(maxTokens, model.maxContext() - 1);
        return prompts.build(PromptView.of(transition), budget);
    }

    @Override
    public Prompt actingPrompt(final ActingView view, final int maxTokens) {
        return prompts.build(view, Math.min(maxTokens, model.maxContext() - 1));
    }

    @Override
    public OptionalInt vocabSize() {
        return OptionalInt.of(model.vocabSize());
    }

    @Override
    public String decode(final int[] tokenIds) {
        return tokenizer.decode(tokenIds);
    }

    /**
     * The tokenizer this version samples with: a remote sampler decodes and ends the server's
     * completions with it, as {@link #sample} does.
     */
    public GenerationTokenizer tokenizer() {
        return tokenizer;
    }

    @Override
    public int[] encode(final String text) {
        return tokenizer.encode(text);
    }

    @Override
    public Optional<ChatTemplate> chatTemplate() {
        return chat;
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
    public Optional<MemoryEstimate> samplingMemory(
            final int prompts, final int promptTokens, final SamplingSettings sampling) {
        return Optional.of(
                MemoryEstimate.sampling(
                        model.shape(),
                        prompts,
                        sampling.groupSize(),
                        promptTokens,
                        sampling.maxNewTokens()));
    }

    @Override
    public void close() {
        release.run();
    }
}
