package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
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
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A GRPO step's arithmetic (reference log-probs without a gradient, policy log-probs, loss,
 * backward) on ALFWorld-sized groups, with each sample carrying its own copy of the prompt against
 * one pass over each group's prompt ({@link SharedPromptBatch}, what the trainer runs), side by
 * side in one run: milliseconds per step, the speed-up, and the shared step's achieved GFLOP/s as a
 * fraction of a plain matmul at the model's own sizes, for the small and medium GPT presets ({@link
 * SmolLm2ShapeBenchmark} runs the same steps at SmolLM2-135M's shape, with peak memory). Prints;
 * asserts nothing.
 */
class SharedPromptBenchmark {

    private static final int PROMPT = 300;
    private static final int MIN_COMPLETION = 20;
    private static final int MAX_COMPLETION = 40;

    @Test
    void benchmarkSharedPromptStep() {
        final List<String> lines = new ArrayList<>();
        try (NDManager manager = DjlRuntime.newManager()) {
            for (final String preset : List.of("small", "medium")) {
                final ModelConfig config = ModelConfig.preset(preset, 1024);
                try (TransformerLM model = TransformerLM.initialise(config, 3, manager)) {
                    lines.add(
                            run(
                                    preset + " GPT",
                                    model,
                                    manager,
                                    2,
                                    8,
                                    3,
                                    config.dModel(),
                                    config.mlp(),
                                    tokens -> config.forwardFlopsPerToken(PROMPT) * tokens));
                }
            }
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    private static String run(
            final String name,
            final CausalLM model,
            final NDManager manager,
            final int groups,
            final int g,
            final int reps,
            final int width,
            final int mlp,
            final Function<Long, Double> forwardFlops) {
        final SplittableRandom random = new SplittableRandom(9);
        final List<SequenceBatch.Pair> pairs = new ArrayList<>();
        final List<float[]> behaviour = new ArrayList<>();
        for (int group = 0; group < groups; group++) {
            final int[] prompt = ids(random, model.vocabSize(), PROMPT);
            for (int s = 0; s < g; s++) {
                final int[] completion =
                        ids(
                                random,
                                model.vocabSize(),
                                random.nextInt(MIN_COMPLETION, MAX_COMPLETION + 1));
                pairs.add(new SequenceBatch.Pair(prompt, completion));
                final float[] b = new float[completion.length];
                java.util.Arrays.fill(b, (float) -Math.log(model.vocabSize()));
                behaviour.add(b);
            }
        }
        final float[] advantages = new float[pairs.size()];
        for (int r = 0; r < advantages.length; r++) {
            advantages[r] = r % 2 == 0 ? 1f : -1f;
        }
        model.setTrainable(true);
        final SharedPromptBatch shared = SharedPromptBatch.of(pairs, 0, model.maxContext());
        final SequenceBatch packed = SequenceBatch.of(pairs, 0, model.maxContext());
        final double packedMs =
                time(reps, () -> packedStep(model, manager, packed, behaviour, advantages));
        final double sharedMs =
                time(reps, () -> sharedStep(model, manager, shared, behaviour, advantages));
        // forward passes: the reference's, the policy's; backward counts as two more
        final long sharedTokens =
                (long) shared.prompts().size() * PROMPT
                        + shared.rows() * (long) (shared.width() - 1);
        final double sharedGflops = 4 * forwardFlops.apply(sharedTokens) / (sharedMs / 1e3) / 1e9;
        final double matmul = matmulGflops(manager, width, mlp);
        return String.format(
                "%-18s %d groups x G=%d, prompt %d, completions %d-%d: with a prompt copy per"
                        + " sample %.0f ms/step, prompt shared %.0f ms/step (%.2fx faster);"
                        + " shared step %.1f GFLOP/s = %.2f of a plain %dx%dx%d matmul (%.1f GFLOP/s)",
                name,
                groups,
                g,
                PROMPT,
                MIN_COMPLETION,
                MAX_COMPLETION,
                packedMs,
                sharedMs,
                packedMs / sharedMs,
                sharedGflops,
                sharedGflops / matmul,
                512,
                width,
                mlp,
                matmul);
    }

    static void packedStep(
            final CausalLM model,
            final NDManager manager,
            final SequenceBatch batch,
            final List<float[]> behaviour,
            final float[] advantages) {
        final int width = batch.length() - 1;
        final float[] b = SharedPromptEqualityTest.packedLayout(batch, behaviour);
        step(
                model,
                manager,
                (step) -> batch.logProbs(model, step),
                step -> step.create(batch.completionMask(), new Shape(batch.rows(), width)),
                b,
                advantages,
                width);
    }

    static void sharedStep(
            final CausalLM model,
            final NDManager manager,
            final SharedPromptBatch batch,
            final List<float[]> behaviour,
            final float[] advantages) {
        step(
                model,
                manager,
                step -> batch.logProbs(model, step),
                batch::mask,
                batch.toLayout(behaviour),
                advantages,
                batch.width());
    }

    private static void step(
            final CausalLM model,
            final NDManager manager,
            final Function<NDManager, NDArray> logProbs,
            final Function<NDManager, NDArray> mask,
            final float[] behaviour,
            final float[] advantages,
            final int width) {
        final int rows = advantages.length;
        try (NDManager step = manager.newSubManager()) {
            final boolean grad = DjlRuntime.setGradMode(false);
            final NDArray reference;
            try {
                reference = logProbs.apply(step);
            } finally {
                DjlRuntime.setGradMode(grad);
            }
            try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                final NDArray loss =
                        Losses.grpo(
                                        logProbs.apply(step),
                                        mask.apply(step),
                                        step.create(behaviour, new Shape(rows, width)),
                                        reference,
                                        step.create(advantages, new Shape(rows, 1)),
                                        GrpoConfig.grpo())
                                .loss();
                collector.backward(loss);
            }
            for (final NDArray p : model.parameters().values()) {
                final NDArray g = p.getGradient();
                g.attach(step);
                g.set(new NDIndex("..."), 0f);
            }
        }
    }

    private static double time(final int reps, final Runnable step) {
        step.run();
        final long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            step.run();
        }
        return (System.nanoTime() - t0) / 1e6 / reps;
    }

    private static double matmulGflops(final NDManager manager, final int width, final int mlp) {
        try (NDManager m = manager.newSubManager()) {
            final NDArray a = m.randomUniform(-1, 1, new Shape(512, width));
            final NDArray b = m.randomUniform(-1, 1, new Shape(width, mlp));
            a.matMul(b).close();
            final int reps = 20;
            final long t0 = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                a.matMul(b).close();
            }
            return 2.0 * 512 * width * mlp * reps / ((System.nanoTime() - t0) / 1e9) / 1e9;
        }
    }

    static int[] ids(final SplittableRandom random, final int vocab, final int n) {
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = 1 + random.nextInt(vocab - 1);
        }
        return ids;
    }
}
