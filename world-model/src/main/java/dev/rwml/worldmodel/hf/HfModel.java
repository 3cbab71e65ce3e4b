package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A loaded Hugging Face checkpoint: its decoder, its tokenizer and its chat template when it has
 * one, and the world-model prompt built for it (the paper's instruction as the system message, the
 * situation as the user message; plain text for a base model without a template).
 *
 * @param decoder the weights in the engine
 * @param tokenizer the checkpoint's tokenizer and end ids
 * @param chat the chat template of {@code tokenizer_config.json}, if any
 */
public record HfModel(HfDecoder decoder, HfTokenizer tokenizer, Optional<ChatTemplate> chat)
        implements AutoCloseable {

    /** Loads a checkpoint directory into {@code manager}. */
    public static HfModel load(final Path dir, final NDManager manager) {
        final HfDecoder decoder = HfDecoder.load(dir, manager);
        try {
            return new HfModel(
                    decoder, HfTokenizer.load(dir, decoder.config()), ChatTemplate.find(dir));
        } catch (final RuntimeException e) {
            decoder.close();
            throw e;
        }
    }

    /** Loads a checkpoint artifact, through a temporary directory removed before returning. */
    public static HfModel open(final HfCheckpoint checkpoint, final NDManager manager) {
        final Path dir;
        try {
            dir = Files.createTempDirectory("rwml-hf-v" + checkpoint.version() + "-");
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
        try {
            return load(checkpoint.writeTo(dir), manager);
        } finally {
            HfCheckpoint.deleteTree(dir);
        }
    }

    /**
     * The prompt of a situation (either role) in {@code format}, rendered for this checkpoint (its
     * chat template, with the role's answer shape, where it has one), within a budget.
     */
    public Prompt prompt(
            final PromptFormat format,
            final PromptFormat.Situation situation,
            final int maxTokens) {
        if (chat.isEmpty()) {
            return format.build(situation, tokenizer::encode, maxTokens, PromptFormat.PLAIN, false);
        }
        final ChatTemplate template = chat.get();
        return format.build(
                situation,
                tokenizer::encode,
                maxTokens,
                (system, user) ->
                        template.render(
                                List.of(
                                        ChatTemplate.Message.system(system),
                                        ChatTemplate.Message.user(user)),
                                true),
                true);
    }

    /** Frees the decoder's parameters and the native tokenizer. */
    @Override
    public void close() {
        decoder.close();
        tokenizer.close();
    }
}
