package dev.rwml.trainer;

import ai.djl.ndarray.NDManager;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.runtime.errors.UnfitSettingsException;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.LoraAdapter;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import dev.rwml.worldmodel.train.Advantages;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.GrpoSample;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shipped {@link PolicyTrainer}: the DJL world model of a checkpoint (the small GPT, or a
 * Hugging Face checkpoint's decoder in float32, fully or through LoRA adapters), trained with the
 * world-model module's GRPO loss (clipped ratio against the recorded behaviour log-probs, k3 KL to
 * version 0) or its SFT loss on the observed next states, with AdamW whose moments travel in every
 * published checkpoint.
 */
public final class WorldModelPolicyTrainer implements PolicyTrainer {

    /**
     * Relative tolerance of the advantage-mode check: GRPO and Dr. GRPO differ by a factor 1 / std,
     * at least 2 for binary rewards, and the reward stage's advantage.epsilon moves GRPO's a
     * little.
     */
    private static final double ADVANTAGE_TOLERANCE = 0.25;

    private static final Logger LOG = LoggerFactory.getLogger(WorldModelPolicyTrainer.class);

    private final Objective objective;
    private final TrainerConfig config;
    private final NDManager manager;
    private final CausalLM policy;
    private final CausalLM reference;
    private final Trainer trainer;
    private final GenerationTokenizer tokenizer;
    private final int maxContext;
    private final Format format;
    private boolean memoryChecked;

    /**
     * What differs between the artifact formats: how a trained version is written and described.
     * The small model's {@link Checkpoint} zip, a Hugging Face checkpoint's files with new weights,
     * or a LoRA adapter.
     *
     * @param name the artifact format the manifest names
     * @param modelConfig the shape the manifest states
     * @param writer the artifact of a version from the model being trained
     */
    private record Format(String name, Map<String, String> modelConfig, Writer writer) {}

    /** Writes the artifact of {@code version} with the optimiser's moments. */
    @FunctionalInterface
    private interface Writer {
        byte[] write(long version, Map<String, Tensor> optimizerState);
    }

    private WorldModelPolicyTrainer(
            final TrainerConfig config,
            final Checkpoint base,
            final Checkpoint latest,
            final boolean latestIsOwnVersion) {
        this.objective = config.objective();
        this.config = config;
        final ModelConfig modelConfig = latest.config();
        final String tokenizerJson = latest.tokenizerJson();
        this.tokenizer = WorldModelTokenizer.fromJson(tokenizerJson);
        this.maxContext = modelConfig.maxContext();
        this.manager = DjlRuntime.newManager();
        final TransformerLM model =
                TransformerLM.fromTensors(latest.config(), latest.weights(), manager);
        this.policy = model;
        // SFT and a zero KL weight need no reference: skip its memory and forward passes.
        this.reference =
                needsReference(config)
                        ? TransformerLM.fromTensors(base.config(), base.weights(), manager)
                        : null;
        this.format =
                new Format(
                        Checkpoint.FORMAT,
                        modelConfig.toManifestMap(),
                        (version, optimizerState) ->
                                new Checkpoint(
                                                version,
                                                modelConfig,
                                                tokenizerJson,
                                                model.toTensors(),
                                                optimizerState)
                                        .toBytes());
        this.trainer = newTrainer(config, policy, reference, tokenizer.padId());
        resume(config, latest.optimizerState(), latest.version(), latestIsOwnVersion);
    }

    /**
     * A trainer of a Hugging Face checkpoint version (float32 compute): GRPO with version 0 as the
     * KL reference, or WM-SFT with targets ending in the checkpoint's end of turn; versions are
     * published as the same checkpoint files with new weights.
     */
    private WorldModelPolicyTrainer(
            final TrainerConfig config,
            final HfCheckpoint base,
            final HfCheckpoint latest,
            final boolean latestIsOwnVersion) {
        this.objective = config.objective();
        this.config = config;
        this.manager = DjlRuntime.newManager();
        final HfModel loaded = HfModel.open(latest, manager);
        this.tokenizer = loaded.tokenizer();
        final int padId = tokenizer.padId();
        final HfDecoder decoder = loaded.decoder();
        this.policy = decoder;
        this.maxContext = decoder.maxContext();
        HfDecoder ref = null;
        if (needsReference(config)) {
            final HfModel baseModel = HfModel.open(base, manager);
            baseModel.tokenizer().close();
            ref = baseModel.decoder();
        }
        this.reference = ref;
        final Map<String, String> manifestConfig = decoder.config().toManifestMap();
        this.format =
                new Format(
                        HfCheckpoint.FORMAT,
                        manifestConfig,
                        (version, optimizerState) ->
                                latest.withWeights(version, decoder.toTensors(), optimizerState)
                                        .toBytes());
        this.trainer = newTrainer(config, policy, reference, padId);
        resume(config, latest.optimizerState(), latest.version(), latestIsOwnVersion);
    }

    /**
     * A LoRA trainer over a Hugging Face version 0 initialised with adapters: the base is loaded
     * once and frozen, the policy is the base with the adapter (fresh, or the latest version's),
     * the KL reference is the same base with the adapter off, and each version carries the adapter
     * and its AdamW moments only.
     */
    private WorldModelPolicyTrainer(
            final TrainerConfig config,
            final HfCheckpoint base,
            final String baseSha256,
            final LoraConfig lora,
            final Optional<LoraCheckpoint> latest,
            final boolean latestIsOwnVersion) {
        this.objective = config.objective();
        this.config = config;
        this.manager = DjlRuntime.newManager();
        final HfModel loaded = HfModel.open(base, manager);
        this.tokenizer = loaded.tokenizer();
        final HfDecoder frozen = loaded.decoder();
        this.maxContext = frozen.maxContext();
        final LoraAdapter adapter;
        if (latest.isPresent()) {
            final LoraCheckpoint l = latest.get();
            l.requireBase(baseSha256);
            adapter = LoraAdapter.fromTensors(frozen.config(), l.config(), l.weights(), manager);
        } else {
            adapter = LoraAdapter.create(frozen.config(), lora, baseSha256.hashCode(), manager);
        }
        final HfDecoder view = frozen.withAdapter(adapter);
        this.policy = view;
        this.reference = needsReference(config) ? frozen : null;
        final Map<String, String> manifestConfig =
                new LinkedHashMap<>(frozen.config().toManifestMap());
        manifestConfig.put("lora", adapter.config().toString());
        manifestConfig.put("adapterParameters", Long.toString(adapter.parameterCount()));
        LOG.info(
                "Trainer: LoRA {} on the frozen base ({} adapter parameters of {}), from {}",
                adapter.config(),
                adapter.parameterCount(),
                frozen.config().parameterCount(),
                latest.map(l -> "version " + l.version() + "'s adapter").orElse("a fresh adapter"));
        this.format =
                new Format(
                        LoraCheckpoint.FORMAT,
                        manifestConfig,
                        (version, optimizerState) ->
                                new LoraCheckpoint(
                                                version,
                                                base.version(),
                                                baseSha256,
                                                adapter.config(),
                                                adapter.toTensors(),
                                                optimizerState)
                                        .toBytes());
        this.trainer = newTrainer(config, policy, reference, tokenizer.padId());
        resume(
                config,
                latest.map(LoraCheckpoint::optimizerState).orElse(Map.of()),
                latest.map(LoraCheckpoint::version).orElse(base.version()),
                latestIsOwnVersion);
    }

    private static boolean needsReference(final TrainerConfig config) {
        return config.objective() == Objective.GRPO && config.klCoefficient() > 0;
    }

    private static Trainer newTrainer(
            final TrainerConfig config,
            final CausalLM policy,
            final CausalLM reference,
            final int padId) {
        return new Trainer(
                policy,
                reference,
                new TrainConfig(
                        config.learningRate(),
                        0.0,
                        0.9,
                        0.999,
                        1e-8,
                        config.maxGradNorm(),
                        config.warmupSteps(),
                        0,
                        TrainConfig.Schedule.CONSTANT,
                        1.0),
                padId);
    }

    private void resume(
            final TrainerConfig config,
            final Map<String, Tensor> optimizerState,
            final long latestVersion,
            final boolean latestIsOwnVersion) {
        if (!optimizerState.isEmpty()) {
            if (resumesOptimizer(config, latestIsOwnVersion)) {
                trainer.optimizer().load(optimizerState);
            } else {
                // Another objective's moments (the base model's SFT, beta2 0.95, hundreds of
                // steps in, so no warmup) would steer the first updates; start from zero.
                LOG.info(
                        "Trainer: fresh optimizer moments with {} warmup steps; version {}'s"
                                + " moments come from another objective (optimizer.fresh=true)",
                        config.warmupSteps(),
                        latestVersion);
            }
        }
    }

    /** Whether the starting checkpoint's AdamW moments are continued. */
    static boolean resumesOptimizer(final TrainerConfig config, final boolean latestIsOwnVersion) {
        return !config.freshOptimizer() || latestIsOwnVersion;
    }

    /**
     * The factory the trainer app uses: versions in the small model's rwml-checkpoint-zip format or
     * in the Hugging Face checkpoint format ({@link HfCheckpoint}), as version 0 was published.
     */
    public static PolicyTrainerFactory factory() {
        return (config, reference, latest) -> {
            final boolean own =
                    latest.version() > 0
                            && config.objective()
                                    .wireName()
                                    .contentEquals(latest.manifest().getObjective());
            if (HfCheckpoint.isFormat(reference.bytes())) {
                final HfCheckpoint base = HfCheckpoint.fromBytes(reference.bytes());
                if (base.lora().isPresent()) {
                    return new WorldModelPolicyTrainer(
                            config,
                            base,
                            reference.manifest().getArtifact().getSha256(),
                            base.lora().get(),
                            latest == reference
                                    ? Optional.empty()
                                    : Optional.of(LoraCheckpoint.fromBytes(latest.bytes())),
                            own);
                }
                return new WorldModelPolicyTrainer(
                        config,
                        base,
                        latest == reference ? base : HfCheckpoint.fromBytes(latest.bytes()),
                        own);
            }
            return new WorldModelPolicyTrainer(
                    config,
                    open(reference),
                    latest == reference ? open(reference) : open(latest),
                    own);
        };
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

    /**
     * Why this model cannot train on the group: a token id outside its vocabulary (the embedding
     * lookup would fail the step, and the step after every restart), a sample whose prompt and
     * completion exceed its context, or (SFT) an observed next state that does not fit.
     */
    @Override
    public Optional<String> unfit(final RewardedGroup group) {
        final int vocab = policy.vocabSize();
        final String id = group.getTransitionId();
        final String prompt = outOfVocabulary(group.getPromptTokenIds(), vocab);
        if (prompt != null) {
            return Optional.of("the prompt of group " + id + " has " + prompt);
        }
        for (int s = 0; s < group.getSamples().size(); s++) {
            final List<Integer> tokens = group.getSamples().get(s).getTokenIds();
            final String sample = outOfVocabulary(tokens, vocab);
            if (sample != null) {
                return Optional.of("sample " + s + " of group " + id + " has " + sample);
            }
            final int length = group.getPromptTokenIds().size() + tokens.size();
            if (objective != Objective.SFT && length > maxContext) {
                return Optional.of(
                        "sample "
                                + s
                                + " of group "
                                + id
                                + " has "
                                + length
                                + " prompt and completion tokens, more than the model's context"
                                + " of "
                                + maxContext);
            }
        }
        return objective == Objective.SFT
                ? Optional.ofNullable(fitted(group).reason())
                : Optional.empty();
    }

    private static String outOfVocabulary(final List<Integer> tokens, final int vocab) {
        for (int i = 0; i < tokens.size(); i++) {
            final int t = tokens.get(i);
            if (t < 0 || t >= vocab) {
                return "token id "
                        + t
                        + " at position "
                        + i
                        + ", outside the vocabulary of "
                        + vocab;
            }
        }
        return null;
    }

    @Override
    public StepStats step(final List<RewardedGroup> miniBatch) {
        final StepMetrics m;
        if (objective == Objective.SFT) {
            final List<SequenceBatch.Pair> pairs = sftPairs(miniBatch);
            if (!memoryChecked) {
                checkFirstStepMemory(miniBatch.size(), pairs);
            }
            m = trainer.sftStep(pairs);
        } else {
            final List<GrpoSample> samples = grpoSamples(miniBatch);
            if (!memoryChecked) {
                checkFirstStepMemory(
                        miniBatch.size(),
                        samples.stream()
                                .map(s -> new SequenceBatch.Pair(s.prompt(), s.completion()))
                                .toList());
            }
            m = trainer.grpoStep(samples, grpoConfig(miniBatch));
        }
        return new StepStats(m.loss(), m.kl(), m.clipFraction(), m.gradNorm(), m.tokens());
    }

    /**
     * Refuses the first step when its estimated need beyond the loaded models exceeds what the
     * device has free (or {@code model.memory.limit}), before it runs: a step that cannot fit would
     * end the process midway and again after every restart. Later steps are not checked: the
     * gradients, moments and buffers of the first are in use by then, so the free memory no longer
     * compares with the estimate.
     */
    private void checkFirstStepMemory(final int groups, final List<SequenceBatch.Pair> pairs) {
        if (pairs.isEmpty()) {
            return;
        }
        memoryChecked = true;
        int prompt = 0;
        int completion = 0;
        for (final SequenceBatch.Pair p : pairs) {
            prompt = Math.max(prompt, p.prompt().length);
            completion = Math.max(completion, p.completion().length);
        }
        final String step =
                String.format(
                        Locale.ROOT,
                        "%d group(s), %d sequences of up to %d prompt + %d completion tokens",
                        groups,
                        pairs.size(),
                        prompt,
                        completion);
        final MemoryEstimate need = trainer.stepMemory(pairs);
        final Optional<String> shortfall = config.model().shortfall(need);
        if (shortfall.isPresent()) {
            throw new UnfitSettingsException(
                    "the trainer's first step ("
                            + step
                            + ") "
                            + shortfall.get()
                            + ": lower groups.per.step or raise mini.batches here, or lower the"
                            + " prediction stage's group.size, prompt.max.tokens or"
                            + " sampling.max.new.tokens"
                            + (format.name().equals(HfCheckpoint.FORMAT)
                                    ? ", or train LoRA adapters (model init --from-hf DIR --lora)"
                                    : ""));
        }
        LOG.info("Trainer: the first step ({}) {}", step, config.model().headroom(need));
    }

    /**
     * The loss settings of one step; Dr. GRPO's constant divisor is the largest max-new-tokens the
     * groups were sampled with.
     */
    GrpoConfig grpoConfig(final List<RewardedGroup> groups) {
        int maxNewTokens = 1;
        for (final RewardedGroup g : groups) {
            maxNewTokens = Math.max(maxNewTokens, g.getSampling().getMaxNewTokens());
        }
        return new GrpoConfig(
                config.clipEpsilonLow(),
                config.clipEpsilonHigh(),
                config.klCoefficient(),
                config.aggregation(),
                config.recipe().loss().normaliseByStd(),
                Math.max(5.0, 2 + config.clipEpsilonHigh()),
                maxNewTokens);
    }

    private List<GrpoSample> grpoSamples(final List<RewardedGroup> groups) {
        final List<GrpoSample> samples = new ArrayList<>();
        for (final RewardedGroup g : groups) {
            checkAdvantageMode(g, config.recipe());
            final int[] prompt = ints(g.getPromptTokenIds());
            for (final RewardedSample s : g.getSamples()) {
                if (s.getTokenIds().isEmpty()) {
                    continue;
                }
                final float[] behaviour = new float[s.getLogprobs().size()];
                for (int i = 0; i < behaviour.length; i++) {
                    behaviour[i] = s.getLogprobs().get(i);
                }
                samples.add(
                        new GrpoSample(prompt, ints(s.getTokenIds()), behaviour, s.getAdvantage()));
            }
        }
        return samples;
    }

    /**
     * Stops the trainer when the reward stage computed advantages in another mode than the recipe
     * assumes: a settings mismatch every group would repeat, not a fault of one group.
     */
    static void checkAdvantageMode(final RewardedGroup group, final LossRecipe recipe) {
        final double[] rewards = new double[group.getSamples().size()];
        for (int i = 0; i < rewards.length; i++) {
            rewards[i] = group.getSamples().get(i).getReward();
        }
        final double[] expected = Advantages.of(rewards, recipe.loss().normaliseByStd());
        for (int i = 0; i < rewards.length; i++) {
            final double recorded = group.getSamples().get(i).getAdvantage();
            if (Math.abs(recorded - expected[i])
                    > ADVANTAGE_TOLERANCE * (1 + Math.abs(expected[i]))) {
                throw new IllegalStateException(
                        "group "
                                + group.getTransitionId()
                                + " has advantage "
                                + recorded
                                + " where recipe="
                                + recipe.wireName()
                                + " expects "
                                + expected[i]
                                + (recipe.loss().normaliseByStd()
                                        ? " ((r - mean) / std)"
                                        : " (r - mean, no std division)")
                                + "; set the reward stage's advantage="
                                + (recipe.loss().normaliseByStd() ? "grpo" : "dr-grpo")
                                + " or choose the trainer recipe that matches it");
            }
        }
    }

    private SftPairs.Fitted fitted(final RewardedGroup g) {
        return SftPairs.fit(
                tokenizer, ints(g.getPromptTokenIds()), g.getObservedNextState(), maxContext);
    }

    private List<SequenceBatch.Pair> sftPairs(final List<RewardedGroup> groups) {
        final List<SequenceBatch.Pair> pairs = new ArrayList<>(groups.size());
        for (final RewardedGroup g : groups) {
            final SftPairs.Fitted f = fitted(g);
            if (f.reason() != null) {
                // the loop dead-letters such groups before the step (see unfit)
                throw new IllegalArgumentException(f.reason());
            }
            if (f.truncatedTokens() > 0) {
                LOG.debug(
                        "Trainer: SFT target of {} cut by {} tokens to fit the context",
                        g.getTransitionId(),
                        f.truncatedTokens());
            }
            pairs.add(f.pair());
        }
        return pairs;
    }

    private static int[] ints(final List<Integer> list) {
        final int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }

    @Override
    public byte[] checkpoint(final long version) {
        return format.writer().write(version, trainer.optimizerState());
    }

    /** The model being trained (tests compare it with what a published version reloads to). */
    CausalLM policy() {
        return policy;
    }

    @Override
    public String artifactFormat() {
        return format.name();
    }

    @Override
    public Map<String, String> modelConfig() {
        return format.modelConfig();
    }

    @Override
    public void close() {
        trainer.close();
        policy.close();
        if (reference != null) {
            reference.close();
        }
        tokenizer.close();
        manager.close();
    }
}
