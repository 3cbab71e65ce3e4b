package dev.rwml.worldmodel;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.LoraAdapter;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's latest version opened for training, whatever its {@link ModelFormat}: the policy to
 * train, version 0 as the frozen KL reference when one is wanted, the tokenizer, the optimiser's
 * moments the version carries, and how a trained version is written back in the same format. The
 * small model trains every weight; a Hugging Face checkpoint trains every weight in float32, or,
 * when version 0 was initialised with LoRA, only an adapter over the frozen base (the reference is
 * then the same base with the adapter off, and each version carries the adapter alone).
 */
public final class TrainableModel implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TrainableModel.class);

    /** Writes the artifact of a trained version with the optimiser's moments. */
    @FunctionalInterface
    private interface Writer {
        byte[] write(long version, Map<String, Tensor> optimizerState);
    }

    private final NDManager manager;
    private final CausalLM policy;
    private final Optional<CausalLM> reference;
    private final GenerationTokenizer tokenizer;
    private final int maxContext;
    private final ModelFormat format;
    private final Map<String, String> modelConfig;
    private final Map<String, Tensor> optimizerState;
    private final long latestVersion;
    private final Writer writer;

    private TrainableModel(
            final NDManager manager,
            final CausalLM policy,
            final Optional<CausalLM> reference,
            final GenerationTokenizer tokenizer,
            final int maxContext,
            final ModelFormat format,
            final Map<String, String> modelConfig,
            final Map<String, Tensor> optimizerState,
            final long latestVersion,
            final Writer writer) {
        this.manager = manager;
        this.policy = policy;
        this.reference = reference;
        this.tokenizer = tokenizer;
        this.maxContext = maxContext;
        this.format = format;
        this.modelConfig = Map.copyOf(modelConfig);
        this.optimizerState = optimizerState;
        this.latestVersion = latestVersion;
        this.writer = writer;
    }

    /**
     * Opens {@code latest} of a run whose version 0 is {@code base} (the same artifact when the run
     * has no other version yet).
     *
     * @param withReference whether to load version 0 as a frozen KL reference
     * @throws IllegalStateException when the versions are not world-model artifacts
     */
    public static TrainableModel open(
            final VerifiedArtifact base,
            final VerifiedArtifact latest,
            final boolean withReference) {
        return switch (ModelFormat.of(base.bytes())) {
            case SMALL ->
                    small(open(base), base == latest ? open(base) : open(latest), withReference);
            case HF -> {
                final HfCheckpoint zero = HfCheckpoint.fromBytes(base.bytes());
                yield zero.lora().isPresent()
                        ? lora(
                                zero,
                                base.manifest().getArtifact().getSha256(),
                                zero.lora().get(),
                                base == latest
                                        ? Optional.empty()
                                        : Optional.of(LoraCheckpoint.fromBytes(latest.bytes())),
                                withReference)
                        : hf(
                                zero,
                                base == latest ? zero : HfCheckpoint.fromBytes(latest.bytes()),
                                withReference);
            }
            case LORA ->
                    throw new IllegalStateException(
                            "version "
                                    + base.version()
                                    + " of run "
                                    + base.run()
                                    + " is a LoRA adapter; a run's version 0 is the checkpoint"
                                    + " adapters are trained over (rwml model init --from-hf DIR"
                                    + " --lora)");
        };
    }

    private static TrainableModel small(
            final Checkpoint base, final Checkpoint latest, final boolean withReference) {
        final NDManager manager = DjlRuntime.newManager();
        final ModelConfig config = latest.config();
        final String tokenizerJson = latest.tokenizerJson();
        final TransformerLM model = TransformerLM.fromTensors(config, latest.weights(), manager);
        return new TrainableModel(
                manager,
                model,
                withReference
                        ? Optional.of(
                                TransformerLM.fromTensors(base.config(), base.weights(), manager))
                        : Optional.empty(),
                WorldModelTokenizer.fromJson(tokenizerJson),
                config.maxContext(),
                ModelFormat.SMALL,
                config.toManifestMap(),
                latest.optimizerState(),
                latest.version(),
                (version, moments) ->
                        new Checkpoint(version, config, tokenizerJson, model.toTensors(), moments)
                                .toBytes());
    }

    private static TrainableModel hf(
            final HfCheckpoint base, final HfCheckpoint latest, final boolean withReference) {
        final NDManager manager = DjlRuntime.newManager();
        final HfModel loaded = HfModel.open(latest, manager);
        final HfDecoder decoder = loaded.decoder();
        Optional<CausalLM> reference = Optional.empty();
        if (withReference) {
            final HfModel zero = HfModel.open(base, manager);
            zero.tokenizer().close();
            reference = Optional.of(zero.decoder());
        }
        return new TrainableModel(
                manager,
                decoder,
                reference,
                loaded.tokenizer(),
                decoder.maxContext(),
                ModelFormat.HF,
                decoder.config().toManifestMap(),
                latest.optimizerState(),
                latest.version(),
                (version, moments) ->
                        latest.withWeights(version, decoder.toTensors(), moments).toBytes());
    }

    private static TrainableModel lora(
            final HfCheckpoint base,
            final String baseSha256,
            final LoraConfig lora,
            final Optional<LoraCheckpoint> latest,
            final boolean withReference) {
        final NDManager manager = DjlRuntime.newManager();
        final HfModel loaded = HfModel.open(base, manager);
        final HfDecoder frozen = loaded.decoder();
        final LoraAdapter adapter;
        if (latest.isPresent()) {
            final LoraCheckpoint l = latest.get();
            l.requireBase(baseSha256);
            adapter = LoraAdapter.fromTensors(frozen.config(), l.config(), l.weights(), manager);
        } else {
            adapter = LoraAdapter.create(frozen.config(), lora, baseSha256.hashCode(), manager);
        }
        final Map<String, String> modelConfig =
                new LinkedHashMap<>(frozen.config().toManifestMap());
        modelConfig.put("lora", adapter.config().toString());
        modelConfig.put("adapterParameters", Long.toString(adapter.parameterCount()));
        LOG.info(
                "Trainer: LoRA {} on the frozen base ({} adapter parameters of {}), from {}",
                adapter.config(),
                adapter.parameterCount(),
                frozen.config().parameterCount(),
                latest.map(l -> "version " + l.version() + "'s adapter").orElse("a fresh adapter"));
        return new TrainableModel(
                manager,
                frozen.withAdapter(adapter),
                withReference ? Optional.of(frozen) : Optional.empty(),
                loaded.tokenizer(),
                frozen.maxContext(),
                ModelFormat.LORA,
                modelConfig,
                latest.map(LoraCheckpoint::optimizerState).orElse(Map.of()),
                latest.map(LoraCheckpoint::version).orElse(base.version()),
                (version, moments) ->
                        new LoraCheckpoint(
                                        version,
                                        base.version(),
                                        baseSha256,
                                        adapter.config(),
                                        adapter.toTensors(),
                                        moments)
                                .toBytes());
    }

    private static Checkpoint open(final VerifiedArtifact artifact) {
        try {
            return Checkpoint.fromBytes(artifact.bytes());
        } catch (final IllegalArgumentException e) {
            throw new IllegalStateException(
                    "version "
                            + artifact.version()
                            + " of run "
                            + artifact.run()
                            + " is not a world-model checkpoint ("
                            + e.getMessage()
                            + "); publish version 0 with `rwml model init`",
                    e);
        }
    }

    /** The model being trained (with its adapter, for LoRA). */
    public CausalLM policy() {
        return policy;
    }

    /** Version 0, frozen, when a KL reference was asked for. */
    public Optional<CausalLM> reference() {
        return reference;
    }

    /** The tokenizer of the model's vocabulary. */
    public GenerationTokenizer tokenizer() {
        return tokenizer;
    }

    /** The most positions a prompt and completion may take together. */
    public int maxContext() {
        return maxContext;
    }

    /** The format versions are written in: the format of version 0 (LoRA for its adapters). */
    public ModelFormat format() {
        return format;
    }

    /** The model's shape, as manifests state it. */
    public Map<String, String> modelConfig() {
        return modelConfig;
    }

    /** The optimiser's moments the opened version carries; empty for a fresh one. */
    public Map<String, Tensor> optimizerState() {
        return optimizerState;
    }

    /** The version the model was opened at. */
    public long latestVersion() {
        return latestVersion;
    }

    /** The artifact of trained version {@code version} with the optimiser's moments. */
    public byte[] write(final long version, final Map<String, Tensor> moments) {
        return writer.write(version, moments);
    }

    /** Frees the models, the tokenizer and every array they own. */
    @Override
    public void close() {
        policy.close();
        reference.ifPresent(CausalLM::close);
        tokenizer.close();
        manager.close();
    }
}
