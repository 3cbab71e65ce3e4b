package dev.rwml.worldmodel;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.generate.Generator;
import dev.rwml.worldmodel.generate.Scorer;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.util.Map;

/**
 * A world model ready to use: its tokenizer, its transformer, and the generator, scorer and trainer
 * over them; created fresh, or loaded from a {@link Checkpoint} for inference or further training.
 */
public final class WorldModel implements AutoCloseable {

    private final NDManager manager;
    private final WorldModelTokenizer tokenizer;
    private final TransformerLM model;

    private WorldModel(
            final NDManager manager,
            final WorldModelTokenizer tokenizer,
            final TransformerLM model) {
        this.manager = manager;
        this.tokenizer = tokenizer;
        this.model = model;
    }

    /** A freshly initialised model; the config's vocabulary must cover the tokenizer's ids. */
    public static WorldModel create(
            final ModelConfig config, final String tokenizerJson, final long seed) {
        final WorldModelTokenizer tokenizer = WorldModelTokenizer.fromJson(tokenizerJson);
        requireVocab(config, tokenizer);
        final NDManager manager = DjlRuntime.newManager();
        return new WorldModel(manager, tokenizer, TransformerLM.initialise(config, seed, manager));
    }

    /** The model of a checkpoint (its optimizer state is read by {@link #trainer}). */
    public static WorldModel load(final Checkpoint checkpoint) {
        final WorldModelTokenizer tokenizer =
                WorldModelTokenizer.fromJson(checkpoint.tokenizerJson());
        requireVocab(checkpoint.config(), tokenizer);
        final NDManager manager = DjlRuntime.newManager();
        return new WorldModel(
                manager,
                tokenizer,
                TransformerLM.fromTensors(checkpoint.config(), checkpoint.weights(), manager));
    }

    /** The tokenizer. */
    public WorldModelTokenizer tokenizer() {
        return tokenizer;
    }

    /** The transformer. */
    public TransformerLM model() {
        return model;
    }

    /** The model's configuration. */
    public ModelConfig config() {
        return model.config();
    }

    /** A batched G-sample generator. */
    public Generator generator() {
        return new Generator(model, tokenizer);
    }

    /** A batched scorer of completions. */
    public Scorer scorer() {
        return new Scorer(model, tokenizer.padId());
    }

    /**
     * A trainer of this model; {@code reference} (nullable) is the frozen KL reference, and a
     * non-empty {@code optimizerState} (from a checkpoint) resumes AdamW where it stopped.
     */
    public Trainer trainer(
            final TrainConfig config,
            final TransformerLM reference,
            final Map<String, dev.rwml.worldmodel.model.Tensor> optimizerState) {
        final Trainer trainer = new Trainer(model, reference, config, tokenizer.padId());
        if (optimizerState != null && !optimizerState.isEmpty()) {
            trainer.optimizer().load(optimizerState);
        }
        return trainer;
    }

    /** A frozen copy of the current weights (the GRPO reference model); close it when done. */
    public TransformerLM frozenCopy() {
        final TransformerLM copy = model.copy(manager);
        copy.setTrainable(false);
        return copy;
    }

    /** A checkpoint of the current weights, with the trainer's optimizer state when given. */
    public Checkpoint checkpoint(final long version, final Trainer trainer) {
        return new Checkpoint(
                version,
                model.config(),
                tokenizer.toJson(),
                model.toTensors(),
                trainer == null ? Map.of() : trainer.optimizerState());
    }

    @Override
    public void close() {
        model.close();
        tokenizer.close();
        manager.close();
    }

    private static void requireVocab(
            final ModelConfig config, final WorldModelTokenizer tokenizer) {
        if (tokenizer.vocabSize() > config.vocabSize()) {
            tokenizer.close();
            throw new IllegalArgumentException(
                    "the tokenizer has "
                            + tokenizer.vocabSize()
                            + " ids but the model config only "
                            + config.vocabSize()
                            + ": use config.withVocabSize(tokenizer.vocabSize())");
        }
    }
}
