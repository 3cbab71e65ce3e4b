package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.SharedPromptBatch;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.Losses;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One pass over a shared prompt gives the loss and every parameter's gradient of the computation
 * where each sequence carries its own copy of the prompt (one causal pass over whole sequences),
 * for the small GPT and the Hugging Face decoders (Qwen2 and Llama fixtures): groups whose prompts
 * differ in length (left padding in the prefix pass), completions of different lengths (right
 * padding), rows of groups interleaved, a one-token completion, and a prompt used once.
 */
class SharedPromptEqualityTest {

    private static final double RELATIVE = 1e-5;

    @ParameterizedTest
    @ValueSource(strings = {"small-gpt", "qwen2-tiny", "llama-tiny"})
    void shouldMatchTheUnsharedLossAndGradients(final String modelName) {
        try (NDManager manager = DjlRuntime.newManager();
                CausalLM model = load(modelName, manager)) {
            final List<SequenceBatch.Pair> pairs = pairs(model.vocabSize());
            final SplittableRandom random = new SplittableRandom(3);
            final List<float[]> behaviour = new ArrayList<>();
            final float[] advantages = new float[pairs.size()];
            for (int r = 0; r < pairs.size(); r++) {
                final float[] b = new float[pairs.get(r).completion().length];
                for (int j = 0; j < b.length; j++) {
                    b[j] = (float) (-Math.log(model.vocabSize()) + random.nextDouble(-0.4, 0.4));
                }
                behaviour.add(b);
                advantages[r] = (float) random.nextDouble(-1.5, 1.5);
            }
            model.setTrainable(true);
            for (final GrpoConfig grpo :
                    List.of(GrpoConfig.grpo(), GrpoConfig.drGrpo(6), GrpoConfig.dapo())) {
                final GrpoConfig.Aggregation aggregation = grpo.aggregation();
                final Result packed =
                        run(
                                model,
                                manager,
                                (step, lp) ->
                                        packedLoss(step, lp, pairs, behaviour, advantages, grpo));
                final Result shared =
                        run(
                                model,
                                manager,
                                (step, lp) ->
                                        sharedLoss(step, lp, pairs, behaviour, advantages, grpo));
                assertThat(shared.loss)
                        .as("%s %s loss", modelName, aggregation)
                        .isCloseTo(
                                packed.loss,
                                org.assertj.core.data.Offset.offset(
                                        RELATIVE * Math.max(1e-3, Math.abs(packed.loss))));
                for (final String name : packed.gradients.keySet()) {
                    final float[] want = packed.gradients.get(name);
                    final float[] got = shared.gradients.get(name);
                    double scale = 0;
                    double diff = 0;
                    for (int i = 0; i < want.length; i++) {
                        scale = Math.max(scale, Math.abs(want[i]));
                        diff = Math.max(diff, Math.abs(want[i] - got[i]));
                    }
                    assertThat(scale).as("%s %s has a gradient", modelName, name).isPositive();
                    assertThat(diff)
                            .as(
                                    "%s %s %s largest gradient difference",
                                    modelName, aggregation, name)
                            .isLessThanOrEqualTo(RELATIVE * scale);
                }
            }
        }
    }

    /**
     * A long prompt with a short completion beside a short prompt with a long one, each at the
     * context's edge: the padding of the first row must not take positions past the context.
     */
    @org.junit.jupiter.api.Test
    void shouldScoreRowsAtTheContextEdgeAsWholeSequencesDo() {
        try (NDManager manager = DjlRuntime.newManager();
                TransformerLM model =
                        TransformerLM.initialise(
                                new ModelConfig(96, 32, 2, 4, 64, 16, true), 5, manager)) {
            final SplittableRandom random = new SplittableRandom(8);
            final List<SequenceBatch.Pair> pairs =
                    List.of(
                            new SequenceBatch.Pair(tokens(random, 96, 14), tokens(random, 96, 2)),
                            new SequenceBatch.Pair(tokens(random, 96, 2), tokens(random, 96, 14)));
            final boolean grad = DjlRuntime.setGradMode(false);
            try (NDManager step = manager.newSubManager()) {
                final SequenceBatch packed = SequenceBatch.of(pairs, 0, 16);
                final float[] whole = packed.logProbs(model, step).toFloatArray();
                final float[] shared =
                        SharedPromptBatch.of(pairs, 0, 16).logProbs(model, step).toFloatArray();
                final int width = packed.length() - 1;
                for (int r = 0; r < pairs.size(); r++) {
                    for (int j = 0; j < pairs.get(r).completion().length; j++) {
                        assertThat(shared[r * 14 + j])
                                .isCloseTo(
                                        whole[r * width + packed.completionStart()[r] - 1 + j],
                                        org.assertj.core.data.Offset.offset(1e-5f));
                    }
                }
            } finally {
                DjlRuntime.setGradMode(grad);
            }
        }
    }

    /** Two groups and a single: prompt lengths 7, 3 and 5; completion lengths 1 to 6. */
    private static List<SequenceBatch.Pair> pairs(final int vocab) {
        final SplittableRandom random = new SplittableRandom(17);
        final int[] a = tokens(random, vocab, 7);
        final int[] b = tokens(random, vocab, 3);
        final int[] c = tokens(random, vocab, 5);
        return List.of(
                new SequenceBatch.Pair(a, tokens(random, vocab, 4)),
                new SequenceBatch.Pair(b, tokens(random, vocab, 5)),
                new SequenceBatch.Pair(a, tokens(random, vocab, 1)),
                new SequenceBatch.Pair(c, tokens(random, vocab, 3)),
                new SequenceBatch.Pair(b, tokens(random, vocab, 2)),
                new SequenceBatch.Pair(a.clone(), tokens(random, vocab, 6)));
    }

    private static int[] tokens(final SplittableRandom random, final int vocab, final int n) {
        final int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = 1 + random.nextInt(vocab - 1);
        }
        return t;
    }

    private record Result(double loss, Map<String, float[]> gradients) {}

    private static Result run(
            final CausalLM model,
            final NDManager manager,
            final BiFunction<NDManager, CausalLM, NDArray> lossOf) {
        try (NDManager step = manager.newSubManager()) {
            final double loss;
            try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                final NDArray lossArray = lossOf.apply(step, model);
                collector.backward(lossArray);
                loss = lossArray.getFloat();
            }
            final Map<String, float[]> gradients = new LinkedHashMap<>();
            for (final Map.Entry<String, NDArray> p : model.parameters().entrySet()) {
                final NDArray g = p.getValue().getGradient();
                g.attach(step);
                gradients.put(p.getKey(), g.toFloatArray());
                g.set(new ai.djl.ndarray.index.NDIndex("..."), 0f);
            }
            return new Result(loss, gradients);
        }
    }

    /** SFT plus GRPO (with a KL term against the model itself) in the whole-sequence layout. */
    private static NDArray packedLoss(
            final NDManager step,
            final CausalLM model,
            final List<SequenceBatch.Pair> pairs,
            final List<float[]> behaviour,
            final float[] advantages,
            final GrpoConfig grpo) {
        final SequenceBatch batch = SequenceBatch.of(pairs, 0, model.maxContext());
        final int width = batch.length() - 1;
        final NDArray mask = step.create(batch.completionMask(), new Shape(batch.rows(), width));
        final NDArray logProbs = batch.logProbs(model, step);
        return loss(
                step,
                logProbs,
                mask,
                packedLayout(batch, behaviour),
                advantages,
                grpo,
                batch.rows(),
                width);
    }

    /**
     * Per-row values (each of the row's completion length) at the completion positions of the
     * whole-sequence layout (rows, length - 1), 0 elsewhere.
     */
    static float[] packedLayout(final SequenceBatch batch, final List<float[]> perRow) {
        final int width = batch.length() - 1;
        final float[] out = new float[batch.rows() * width];
        for (int r = 0; r < batch.rows(); r++) {
            System.arraycopy(
                    perRow.get(r),
                    0,
                    out,
                    r * width + batch.completionStart()[r] - 1,
                    batch.completionLength()[r]);
        }
        return out;
    }

    private static NDArray sharedLoss(
            final NDManager step,
            final CausalLM model,
            final List<SequenceBatch.Pair> pairs,
            final List<float[]> behaviour,
            final float[] advantages,
            final GrpoConfig grpo) {
        final SharedPromptBatch batch = SharedPromptBatch.of(pairs, 0, model.maxContext());
        assertThat(batch.prompts()).hasSize(3);
        return loss(
                step,
                batch.logProbs(model, step),
                batch.mask(step),
                batch.toLayout(behaviour),
                advantages,
                grpo,
                batch.rows(),
                batch.width());
    }

    private static NDArray loss(
            final NDManager step,
            final NDArray logProbs,
            final NDArray mask,
            final float[] behaviour,
            final float[] advantages,
            final GrpoConfig grpo,
            final int rows,
            final int width) {
        final NDArray reference = logProbs.stopGradient().add(0.05f);
        final NDArray rl =
                Losses.grpo(
                                logProbs,
                                mask,
                                step.create(behaviour, new Shape(rows, width)),
                                reference,
                                step.create(advantages, new Shape(rows, 1)),
                                grpo)
                        .loss();
        return rl.add(Losses.sft(logProbs, mask));
    }

    private static CausalLM load(final String name, final NDManager manager) {
        if (name.equals("small-gpt")) {
            return TransformerLM.initialise(
                    new ModelConfig(96, 32, 2, 4, 64, 64, true), 5, manager);
        }
        return HfDecoder.load(HfFixtures.checkpoint(name), manager);
    }
}
