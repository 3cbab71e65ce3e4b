package dev.rwml.trainer;

import ai.djl.ndarray.NDManager;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.channel.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.SpecialTokens;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.GrpoSample;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shipped {@link PolicyTrainer}: the DJL transformer world model of a checkpoint, trained with
 * the world-model module's GRPO loss (clipped ratio against the recorded behaviour log-probs, k3 KL
 * to version 0) or its SFT loss on the observed next states, with AdamW whose moments travel in
 * every published checkpoint.
 */
public final class WorldModelPolicyTrainer implements PolicyTrainer {

    private final Objective objective;
    private final GrpoConfig grpo;
    private final NDManager manager;
    private final TransformerLM policy;
    private final TransformerLM reference;
    private final Trainer trainer;
    private final WorldModelTokenizer tokenizer;
    private final ModelConfig modelConfig;
    private final String tokenizerJson;

    private WorldModelPolicyTrainer(
            final TrainerConfig config, final Checkpoint base, final Checkpoint latest) {
        this.objective = config.objective();
        this.grpo =
                new GrpoConfig(
                        config.clipEpsilon(),
                        config.clipEpsilon(),
                        config.klCoefficient(),
                        GrpoConfig.Aggregation.SEQUENCE_MEAN,
                        true,
                        Math.max(5.0, 2 + config.clipEpsilon()),
                        1);
        this.modelConfig = latest.config();
        this.tokenizerJson = latest.tokenizerJson();
        this.tokenizer = WorldModelTokenizer.fromJson(tokenizerJson);
        this.manager = DjlRuntime.newManager();
        this.policy = TransformerLM.fromTensors(latest.config(), latest.weights(), manager);
        // SFT and a zero KL weight need no reference: skip its memory and forward passes.
        this.reference =
                objective == Objective.GRPO && config.klCoefficient() > 0
                        ? TransformerLM.fromTensors(base.config(), base.weights(), manager)
                        : null;
        this.trainer =
                new Trainer(
                        policy,
                        reference,
                        new TrainConfig(
                                config.learningRate(),
                                0.0,
                                0.9,
                                0.999,
                                1e-8,
                                config.maxGradNorm(),
                                0,
                                0,
                                TrainConfig.Schedule.CONSTANT,
                                1.0),
                        tokenizer.padId());
        if (!latest.optimizerState().isEmpty()) {
            trainer.optimizer().load(latest.optimizerState());
        }
    }

    /** The factory the trainer app uses: checkpoints of the rwml-checkpoint-zip format. */
    public static PolicyTrainerFactory factory() {
        return (config, reference, latest) ->
                new WorldModelPolicyTrainer(
                        config,
                        open(reference),
                        latest == reference ? open(reference) : open(latest));
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

    @Override
    public StepStats step(final List<RewardedGroup> miniBatch) {
        final StepMetrics m =
                objective == Objective.SFT
                        ? trainer.sftStep(sftPairs(miniBatch))
                        : trainer.grpoStep(grpoSamples(miniBatch), grpo);
        return new StepStats(m.loss(), m.kl(), m.clipFraction(), m.gradNorm(), m.tokens());
    }

    private static List<GrpoSample> grpoSamples(final List<RewardedGroup> groups) {
        final List<GrpoSample> samples = new ArrayList<>();
        for (final RewardedGroup g : groups) {
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

    private List<SequenceBatch.Pair> sftPairs(final List<RewardedGroup> groups) {
        final List<SequenceBatch.Pair> pairs = new ArrayList<>(groups.size());
        for (final RewardedGroup g : groups) {
            // The completion format the model samples: an empty reasoning block, then the state.
            final String target =
                    SpecialTokens.THINK_OPEN
                            + SpecialTokens.THINK_CLOSE
                            + SpecialTokens.NEXT_STATE_OPEN
                            + g.getObservedNextState()
                            + SpecialTokens.NEXT_STATE_CLOSE;
            pairs.add(
                    new SequenceBatch.Pair(ints(g.getPromptTokenIds()), tokenizer.encode(target)));
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
        return new Checkpoint(
                        version,
                        modelConfig,
                        tokenizerJson,
                        policy.toTensors(),
                        trainer.optimizerState())
                .toBytes();
    }

    @Override
    public String artifactFormat() {
        return Checkpoint.FORMAT;
    }

    @Override
    public Map<String, String> modelConfig() {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("vocabSize", Integer.toString(modelConfig.vocabSize()));
        m.put("dModel", Integer.toString(modelConfig.dModel()));
        m.put("layers", Integer.toString(modelConfig.layers()));
        m.put("heads", Integer.toString(modelConfig.heads()));
        m.put("mlp", Integer.toString(modelConfig.mlp()));
        m.put("maxContext", Integer.toString(modelConfig.maxContext()));
        m.put("parameters", Long.toString(modelConfig.parameterCount()));
        return m;
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
