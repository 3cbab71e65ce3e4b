package dev.rwml.worldmodel.serve;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.channel.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads world-model versions into DJL on the runtime's device, in either artifact format: the small
 * model's {@link Checkpoint} zip, or a Hugging Face checkpoint ({@link HfCheckpoint}). Each loaded
 * version owns a sub-manager of this loader's base manager.
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
        if (HfCheckpoint.FORMAT.equals(artifact.manifest().getArtifact().getFormat())
                || HfCheckpoint.isFormat(artifact.bytes())) {
            return fromHf(artifact.version(), HfCheckpoint.fromBytes(artifact.bytes()));
        }
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

    /** Loads a Hugging Face checkpoint artifact already in memory. */
    public PredictionModel fromHf(final long version, final HfCheckpoint checkpoint) {
        final HfModel model = HfModel.open(checkpoint, manager);
        LOG.info(
                "Loaded model version {}: {} ({} parameters, context {}, vocabulary {}, {})",
                version,
                model.decoder().config().architecture().className(),
                model.decoder().config().parameterCount(),
                model.decoder().maxContext(),
                model.decoder().vocabSize(),
                model.chat().isPresent() ? "chat template" : "plain prompts, no chat template");
        return new WorldModelPredictor(
                version,
                model.decoder(),
                model.tokenizer(),
                (view, max) -> model.prompt(format, view, max));
    }

    @Override
    public void close() {
        manager.close();
    }
}
