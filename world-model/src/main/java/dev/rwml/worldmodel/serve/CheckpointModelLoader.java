package dev.rwml.worldmodel.serve;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.channel.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads world-model checkpoints ({@link Checkpoint} zips) into DJL on the runtime's device; each
 * loaded version owns a sub-manager of this loader's base manager.
 */
public final class CheckpointModelLoader implements ModelLoader {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointModelLoader.class);

    private final PromptFormat format;
    private final NDManager manager;

    /** A loader building prompts with {@code format}. */
    public CheckpointModelLoader(final PromptFormat format) {
        this.format = format;
        this.manager = DjlRuntime.newManager();
    }

    /** A loader with the paper's prompt format (H = 2 history turns). */
    public static CheckpointModelLoader standard() {
        return new CheckpointModelLoader(PromptFormat.standard());
    }

    @Override
    public PredictionModel load(final VerifiedArtifact artifact) {
        final Checkpoint checkpoint = Checkpoint.fromBytes(artifact.bytes());
        if (checkpoint.version() != artifact.version()) {
            LOG.warn(
                    "Checkpoint says version {} but was published as version {}; serving it as {}",
                    checkpoint.version(),
                    artifact.version(),
                    artifact.version());
        }
        return fromCheckpoint(artifact.version(), checkpoint);
    }

    /** Loads a checkpoint already in memory (tests and benchmarks build them directly). */
    public PredictionModel fromCheckpoint(final long version, final Checkpoint checkpoint) {
        final WorldModelTokenizer tokenizer =
                WorldModelTokenizer.fromJson(checkpoint.tokenizerJson());
        final TransformerLM model;
        try {
            model = TransformerLM.fromTensors(checkpoint.config(), checkpoint.weights(), manager);
        } catch (RuntimeException e) {
            tokenizer.close();
            throw e;
        }
        LOG.info(
                "Loaded model version {} ({} parameters, context {}, vocabulary {})",
                version,
                checkpoint.config().parameterCount(),
                checkpoint.config().maxContext(),
                tokenizer.vocabSize());
        return new WorldModelPredictor(version, model, tokenizer, format);
    }

    @Override
    public void close() {
        manager.close();
    }
}
