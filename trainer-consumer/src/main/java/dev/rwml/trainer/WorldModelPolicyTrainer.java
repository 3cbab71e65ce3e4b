package dev.rwml.trainer;

import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.runtime.errors.UnfitSettingsException;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.TrainableModel;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.train.Advantages;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.GrpoSample;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.util.ArrayList;
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
    private final TrainableModel model;
    private final CausalLM policy;
    private final CausalLM reference;
    private final Trainer trainer;
    private final GenerationTokenizer tokenizer;
    private final int maxContext;
    private boolean memoryChecked;

    private WorldModelPolicyTrainer(
            final TrainerConfig config,
            final TrainableModel model,
            final boolean latestIsOwnVersion) {
        this.objective = config.objective();
        this.config = config;
        this.model = model;
        this.policy = model.policy();
        this.reference = model.reference().orElse(null);
        this.tokenizer = model.tokenizer();
        this.maxContext = model.maxContext();
        this.trainer = newTrainer(config, policy, reference, tokenizer.padId());
        resume(config, model.optimizerState(), model.latestVersion(), latestIsOwnVersion);
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
     * The factory the trainer app uses: versions in the format version 0 was published in (the
     * small model's, a Hugging Face checkpoint's, or LoRA adapters over one), opened by {@link
     * TrainableModel}; SFT and a zero KL weight load no reference.
     */
    public static PolicyTrainerFactory factory() {
        return (config, reference, latest) -> {
            final boolean own =
                    latest.version() > 0
                            && config.objective()
                                    .wireName()
                                    .contentEquals(latest.manifest().getObjective());
            return new WorldModelPolicyTrainer(
                    config, TrainableModel.open(reference, latest, needsReference(config)), own);
        };
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
                            + (model.format() == ModelFormat.HF
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

    /** The WM-SFT pairs of groups that fit (see {@link SftPairs}), as a step trains them. */
    List<SequenceBatch.Pair> sftPairs(final List<RewardedGroup> groups) {
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
        return model.write(version, trainer.optimizerState());
    }

    /** The model being trained (tests compare it with what a published version reloads to). */
    CausalLM policy() {
        return policy;
    }

    @Override
    public String artifactFormat() {
        return model.format().wireName();
    }

    @Override
    public Map<String, String> modelConfig() {
        return model.modelConfig();
    }

    @Override
    public void close() {
        trainer.close();
        model.close();
    }
}
