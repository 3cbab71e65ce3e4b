package dev.rwml.worldmodel.serve;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.LoraAdapter;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads world-model versions into DJL on the runtime's device, in any artifact format: the small
 * model's {@link Checkpoint} zip, a Hugging Face checkpoint ({@link HfCheckpoint}), or a LoRA
 * adapter over one ({@link LoraCheckpoint}). A LoRA run's base is loaded once, when its version 0
 * or its first adapter arrives, and stays for the loader's life: each adapter version then costs
 * only its adapter's arrays, and swapping versions never reloads the base. Each loaded version owns
 * a sub-manager of this loader's base manager.
 */
public final class CheckpointModelLoader implements ModelLoader {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointModelLoader.class);

    private final PromptFormat format;
    private final NDManager manager;
    private final Map<String, HfModel> bases = new HashMap<>();

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
    public PredictionModel load(final VerifiedArtifact artifact, final ArtifactSource versions) {
        return switch (ModelFormat.of(artifact.bytes())) {
            case LORA ->
                    fromLora(
                            artifact.version(),
                            LoraCheckpoint.fromBytes(artifact.bytes()),
                            versions);
            case HF -> fromHfArtifact(artifact);
            case SMALL -> fromSmallArtifact(artifact);
        };
    }

    private PredictionModel fromHfArtifact(final VerifiedArtifact artifact) {
        final HfModel loadedBase = bases.get(sha(artifact));
        if (loadedBase != null) {
            // a LoRA run's version 0 again: its base is loaded, unpacking it would be waste
            return predictor(artifact.version(), loadedBase, loadedBase.decoder(), () -> {});
        }
        final HfCheckpoint checkpoint = HfCheckpoint.fromBytes(artifact.bytes());
        if (checkpoint.lora().isPresent()) {
            final HfModel base = base(artifact, checkpoint);
            return predictor(artifact.version(), base, base.decoder(), () -> {});
        }
        return fromHf(artifact.version(), checkpoint);
    }

    private PredictionModel fromSmallArtifact(final VerifiedArtifact artifact) {
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
        logLoaded(version, model, "");
        return predictor(version, model, model.decoder(), model::close);
    }

    private PredictionModel fromLora(
            final long version, final LoraCheckpoint lora, final ArtifactSource versions) {
        final String sha = lora.baseSha256().toLowerCase(Locale.ROOT);
        HfModel base = bases.get(sha);
        if (base == null) {
            final VerifiedArtifact baseArtifact;
            try {
                baseArtifact = versions.fetch(lora.baseVersion());
            } catch (final ArtifactRejectedException e) {
                throw new IllegalStateException(
                        "adapter version "
                                + version
                                + " needs its base, version "
                                + lora.baseVersion()
                                + ": "
                                + e.getMessage(),
                        e);
            }
            lora.requireBase(sha(baseArtifact));
            base = base(baseArtifact, HfCheckpoint.fromBytes(baseArtifact.bytes()));
        }
        final HfDecoder view =
                base.decoder()
                        .withAdapter(
                                LoraAdapter.fromTensors(
                                        base.decoder().config(),
                                        lora.config(),
                                        lora.weights(),
                                        manager));
        LOG.info(
                "Loaded model version {}: LoRA {} ({} adapter parameters) over base version {}",
                version,
                lora.config(),
                view.adapter().orElseThrow().parameterCount(),
                lora.baseVersion());
        return predictor(version, base, view, view::close);
    }

    /** The base of a LoRA run, loaded on first use and kept. */
    private HfModel base(final VerifiedArtifact artifact, final HfCheckpoint checkpoint) {
        final String sha = sha(artifact);
        HfModel base = bases.get(sha);
        if (base == null) {
            base = HfModel.open(checkpoint, manager);
            logLoaded(
                    artifact.version(),
                    base,
                    ", kept as the base of LoRA " + checkpoint.lora().orElseThrow());
            bases.put(sha, base);
        }
        return base;
    }

    private static String sha(final VerifiedArtifact artifact) {
        return artifact.manifest().getArtifact().getSha256().toLowerCase(Locale.ROOT);
    }

    private PredictionModel predictor(
            final long version,
            final HfModel model,
            final HfDecoder decoder,
            final Runnable close) {
        return new WorldModelPredictor(
                version,
                decoder,
                model.tokenizer(),
                (view, max) -> model.prompt(format, view, max),
                close,
                model.chat());
    }

    private static void logLoaded(final long version, final HfModel model, final String note) {
        LOG.info(
                "Loaded model version {}: {} ({} parameters, context {}, vocabulary {}, {}){}",
                version,
                model.decoder().config().architecture().className(),
                model.decoder().config().parameterCount(),
                model.decoder().maxContext(),
                model.decoder().vocabSize(),
                model.chat().isPresent() ? "chat template" : "plain prompts, no chat template",
                note);
    }

    /** Frees the LoRA bases and everything loaded through this loader. */
    @Override
    public void close() {
        bases.values().forEach(HfModel::close);
        bases.clear();
        manager.close();
    }
}
