package dev.rwml.worldmodel.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.SharedPromptBatch;
import dev.rwml.worldmodel.model.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trains a world model in place: SFT steps on prompt/target pairs and GRPO steps on sampled groups,
 * each one forward/backward in its own manager, then global gradient-norm clipping and an AdamW
 * update on the learning-rate schedule. DJL allows one open gradient collector per JVM, so steps of
 * every trainer are serialised.
 */
public final class Trainer implements AutoCloseable {

    private static final Object COLLECTOR_LOCK = new Object();

    private static final Logger LOG = LoggerFactory.getLogger(Trainer.class);

    /** Every element of an array. */
    private static final NDIndex ALL = new NDIndex("...");

    private final CausalLM policy;
    private final CausalLM reference;
    private final TrainConfig config;
    private final int padId;
    private final NDManager manager;
    private final AdamW optimizer;

    /**
     * A trainer of {@code policy}; {@code reference} (nullable) is the frozen model of the KL term
     * and is never updated.
     */
    public Trainer(
            final CausalLM policy,
            final CausalLM reference,
            final TrainConfig config,
            final int padId) {
        this.policy = policy;
        this.reference = reference;
        this.config = config;
        this.padId = padId;
        this.manager = DjlRuntime.newManager();
        this.optimizer = new AdamW(manager);
        policy.setTrainable(true);
        if (reference != null) {
            reference.setTrainable(false);
        }
    }

    /** The optimiser (its state goes into checkpoints). */
    public AdamW optimizer() {
        return optimizer;
    }

    /**
     * What one step over {@code pairs} needs beyond the loaded models, as {@link #sftStep} and
     * {@link #grpoStep} batch them ({@link MemoryEstimate#trainingStep}).
     */
    public MemoryEstimate stepMemory(final List<SequenceBatch.Pair> pairs) {
        long trainable = 0;
        for (final NDArray p : policy.parameters().values()) {
            trainable += p.size();
        }
        return MemoryEstimate.trainingStep(
                policy.shape(),
                trainable,
                policy.adapterFloatsPerToken(),
                SharedPromptBatch.of(pairs, padId, policy.maxContext()));
    }

    /** One SFT step: cross-entropy of the completions (targets) given their prompts. */
    public StepMetrics sftStep(final List<SequenceBatch.Pair> examples) {
        final SharedPromptBatch batch = SharedPromptBatch.of(examples, padId, policy.maxContext());
        synchronized (COLLECTOR_LOCK) {
            try (NDManager step = manager.newSubManager()) {
                final double loss;
                try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                    final NDArray lossArray =
                            Losses.sft(batch.logProbs(policy, step), batch.mask(step));
                    collector.backward(lossArray);
                    loss = lossArray.getFloat();
                }
                return update(
                        step,
                        loss,
                        0,
                        0,
                        batch.completionTokens(),
                        1,
                        () -> diagnostics(step, batch, null));
            }
        }
    }

    /**
     * One GRPO step over samples (typically whole groups) with their advantages; samples with the
     * same prompt share one pass over it, in the policy and in the reference model.
     */
    public StepMetrics grpoStep(final List<GrpoSample> samples, final GrpoConfig grpo) {
        final List<SequenceBatch.Pair> pairs = new ArrayList<>(samples.size());
        final List<float[]> behaviourPerRow = new ArrayList<>(samples.size());
        for (final GrpoSample s : samples) {
            pairs.add(new SequenceBatch.Pair(s.prompt(), s.completion()));
            behaviourPerRow.add(s.behaviourLogProbs());
        }
        final SharedPromptBatch batch = SharedPromptBatch.of(pairs, padId, policy.maxContext());
        final int rows = batch.rows();
        final int width = batch.width();
        final float[] behaviour = batch.toLayout(behaviourPerRow);
        final float[] advantages = new float[rows];
        for (int r = 0; r < rows; r++) {
            advantages[r] = (float) samples.get(r).advantage();
        }
        synchronized (COLLECTOR_LOCK) {
            try (NDManager step = manager.newSubManager()) {
                final NDArray mask = batch.mask(step);
                NDArray referenceLogProbs = null;
                if (reference != null) {
                    final boolean grad = DjlRuntime.setGradMode(false);
                    try {
                        referenceLogProbs = batch.logProbs(reference, step);
                    } finally {
                        DjlRuntime.setGradMode(grad);
                    }
                }
                final Losses.GrpoTerms terms;
                final double loss;
                try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                    terms =
                            Losses.grpo(
                                    batch.logProbs(policy, step),
                                    mask,
                                    step.create(behaviour, new Shape(rows, width)),
                                    referenceLogProbs,
                                    step.create(advantages, new Shape(rows, 1)),
                                    grpo);
                    collector.backward(terms.loss());
                    loss = terms.loss().getFloat();
                }
                final float[] ratio = terms.ratio().toFloatArray();
                final float[] kl = terms.kl() == null ? null : terms.kl().toFloatArray();
                final float[] m = batch.completionMask();
                double klSum = 0;
                double ratioSum = 0;
                int clippedTokens = 0;
                for (int i = 0; i < m.length; i++) {
                    if (m[i] == 0f) {
                        continue;
                    }
                    final float a = advantages[i / width];
                    ratioSum += ratio[i];
                    klSum += kl == null ? 0 : kl[i];
                    if ((a > 0 && ratio[i] > 1 + grpo.clipHigh())
                            || (a < 0 && ratio[i] < 1 - grpo.clipLow())) {
                        clippedTokens++;
                    }
                }
                final int tokens = batch.completionTokens();
                final int n = Math.max(1, tokens);
                return update(
                        step,
                        loss,
                        klSum / n,
                        (double) clippedTokens / n,
                        tokens,
                        ratioSum / n,
                        () -> diagnostics(step, batch, terms));
            }
        }
    }

    private StepMetrics update(
            final NDManager step,
            final double loss,
            final double kl,
            final double clipFraction,
            final int tokens,
            final double meanRatio,
            final Supplier<String> diagnostics) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try {
            final Map<String, NDArray> grads = new LinkedHashMap<>();
            final NDList squares = new NDList();
            for (final Map.Entry<String, NDArray> e : policy.parameters().entrySet()) {
                final NDArray g = e.getValue().getGradient();
                g.attach(step);
                grads.put(e.getKey(), g);
                // in double: float32 squares overflow from |g| of 2e19 and lose small terms
                squares.add(g.toType(DataType.FLOAT64, false).square().sum());
            }
            final double norm = Math.sqrt(NDArrays.stack(squares).sum().getDouble());
            final float scale =
                    config.maxGradNorm() > 0 && norm > config.maxGradNorm()
                            ? (float) (config.maxGradNorm() / (norm + 1e-6))
                            : 1f;
            final long index = optimizer.steps();
            final double lr = config.learningRateAt(index);
            String skipped = "";
            if (Double.isFinite(norm)) {
                optimizer.step(policy.parameters(), grads, config, lr, scale);
            } else {
                // An overflowing gradient would turn every weight into NaN; skip the update, as
                // mixed-precision scalers do, and let the next batch continue from intact weights.
                skipped =
                        "the gradient norm is "
                                + norm
                                + "; "
                                + firstNonFinite(grads)
                                + ", "
                                + diagnostics.get();
                LOG.warn("Optimizer step {} skipped: {}", index, skipped);
            }
            // The gradient collector accumulates: zero for the next step. Filling, not
            // multiplying by 0, so an infinite gradient element cannot leave a NaN behind.
            for (final NDArray g : grads.values()) {
                g.set(ALL, 0f);
            }
            return new StepMetrics(
                    index, loss, kl, clipFraction, norm, tokens, lr, meanRatio, skipped);
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    /** The name of the first parameter whose gradient has a NaN or infinite element. */
    static String firstNonFinite(final Map<String, NDArray> grads) {
        for (final Map.Entry<String, NDArray> e : grads.entrySet()) {
            final NDArray g = e.getValue();
            if (g.isNaN().any().getBoolean() || g.isInfinite().any().getBoolean()) {
                return "first non-finite gradient: " + e.getKey();
            }
        }
        return "first non-finite gradient: none";
    }

    /**
     * What a skipped step's inputs looked like: the largest |log-ratio| to the behaviour policy and
     * the largest KL exponent {@code ref - logp} (before their clamps), and the largest |logit| of
     * the completion positions.
     */
    private String diagnostics(
            final NDManager step, final SharedPromptBatch batch, final Losses.GrpoTerms terms) {
        final StringBuilder s = new StringBuilder();
        if (terms != null) {
            s.append("largest |log-ratio| ")
                    .append(maxAbs(terms.logRatio()))
                    .append(", largest KL exponent ")
                    .append(
                            terms.klExponent() == null
                                    ? "n/a (no reference)"
                                    : Double.toString(maxOf(terms.klExponent())))
                    .append(", ");
        }
        return s.append("largest |logit| ").append(maxAbs(batch.logits(policy, step))).toString();
    }

    private static double maxAbs(final NDArray a) {
        return a.abs().max().toType(DataType.FLOAT64, false).getDouble();
    }

    private static double maxOf(final NDArray a) {
        return a.max().toType(DataType.FLOAT64, false).getDouble();
    }

    /** The optimiser state as tensors, for a checkpoint. */
    public Map<String, Tensor> optimizerState() {
        return optimizer.toTensors();
    }

    @Override
    public void close() {
        manager.close();
    }
}
