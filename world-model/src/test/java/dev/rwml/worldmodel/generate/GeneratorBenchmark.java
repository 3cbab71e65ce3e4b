package dev.rwml.worldmodel.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Sampling throughput after a warm-up, side by side with the bare decode loop of the same model
 * (one forward per step through the KV cache, no sampling, no Java work), so the ratio shows what
 * the generator adds over the engine; and the cost of drawing one token in Java at top-p 1 and 0.9.
 * Prints; asserts nothing.
 */
class GeneratorBenchmark {

    private static final int VOCAB = 1024;
    private static final int PROMPT = 96;
    private static final int NEW = 32;

    @Test
    void benchmarkSampling() {
        final String tokenizer = tokenizer();
        final List<String> lines = new ArrayList<>();
        lines.add(javaSampling(0.9f));
        lines.add(javaSampling(1f));
        for (final ModelConfig config :
                List.of(ModelConfig.tiny(VOCAB), ModelConfig.small(VOCAB))) {
            try (WorldModel model = WorldModel.create(config, tokenizer, 1)) {
                for (final int[] shape : new int[][] {{1, 16}, {2, 8}}) {
                    lines.add(generate(model, shape[0], shape[1]));
                }
            }
        }
        // the same model on one intra-op thread: on a busy machine a second one mostly waits
        final int threads = ai.djl.pytorch.jni.JniUtils.getNumThreads();
        DjlRuntime.configureThreads(1, 1);
        try (WorldModel model = WorldModel.create(ModelConfig.small(VOCAB), tokenizer, 1)) {
            lines.add("1 intra-op thread (was " + threads + "): " + generate(model, 1, 16));
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    private static String generate(final WorldModel model, final int prompts, final int g) {
        final Random random = new Random(3);
        final List<int[]> batch = new ArrayList<>();
        for (int i = 0; i < prompts; i++) {
            batch.add(randomIds(random, PROMPT));
        }
        final Generator generator = model.generator();
        final SamplingParams params = new SamplingParams(1f, 1f, NEW, 7);
        generator.generate(batch, g, params);
        decodeOnly(model.model(), prompts * g);
        final int reps = 3;
        long generated = 0;
        final long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            for (final List<Sample> group : generator.generate(batch, g, params)) {
                for (final Sample s : group) {
                    generated += s.tokenIds().length;
                }
            }
        }
        final double sampleTps = generated / ((System.nanoTime() - t0) / 1e9);
        final long d0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            decodeOnly(model.model(), prompts * g);
        }
        final double decodeTps =
                (double) reps * prompts * g * NEW / ((System.nanoTime() - d0) / 1e9);
        return String.format(
                "d%d L%d, %d prompt(s) x G=%d, prompt %d, %d new: generate %.0f tok/s, bare decode"
                        + " loop %.0f tok/s, generate/decode %.2f",
                model.config().dModel(),
                model.config().layers(),
                prompts,
                g,
                PROMPT,
                NEW,
                sampleTps,
                decodeTps,
                sampleTps / decodeTps);
    }

    /**
     * NEW one-token forwards of {@code rows} rows through a cache prefilled with one prompt each.
     */
    private static void decodeOnly(final TransformerLM model, final int rows) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager m = DjlRuntime.newManager();
                KvCache cache = new KvCache(m, model.config(), rows, PROMPT + NEW)) {
            final long[] ids = new long[rows * PROMPT];
            final long[] pos = new long[rows * PROMPT];
            for (int i = 0; i < pos.length; i++) {
                ids[i] = 10 + i % 500;
                pos[i] = i % PROMPT;
            }
            try (NDManager step = m.newSubManager()) {
                model.forward(
                        step.create(ids, new Shape(rows, PROMPT)),
                        step.create(pos, new Shape(rows, PROMPT)),
                        dev.rwml.worldmodel.model.Masks.causal(step, PROMPT),
                        cache);
            }
            for (int s = 0; s < NEW; s++) {
                try (NDManager step = m.newSubManager()) {
                    final long[] next = new long[rows];
                    final long[] p = new long[rows];
                    java.util.Arrays.fill(next, 11 + s);
                    java.util.Arrays.fill(p, PROMPT + s);
                    final NDArray logits =
                            model.forward(
                                    step.create(next, new Shape(rows, 1)),
                                    step.create(p, new Shape(rows, 1)),
                                    null,
                                    cache);
                    logits.toFloatArray();
                }
            }
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    /** Microseconds to draw one token from a model-like row of probabilities. */
    private static String javaSampling(final float topP) {
        final Random random = new Random(5);
        final int rows = 64;
        final float[] probs = new float[rows * VOCAB];
        for (int r = 0; r < rows; r++) {
            double total = 0;
            for (int i = 0; i < VOCAB; i++) {
                // a peaked, heavy-tailed row like a trained model's
                probs[r * VOCAB + i] = (float) Math.exp(random.nextGaussian() * 3);
                total += probs[r * VOCAB + i];
            }
            for (int i = 0; i < VOCAB; i++) {
                probs[r * VOCAB + i] /= (float) total;
            }
        }
        final TokenSampler sampler = new TokenSampler(VOCAB);
        final SplittableRandom rng = new SplittableRandom(1);
        long sink = 0;
        for (int warm = 0; warm < 2000; warm++) {
            sink += sampler.draw(probs, (warm % rows) * VOCAB, topP, rng);
        }
        final int n = 20_000;
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += sampler.draw(probs, (i % rows) * VOCAB, topP, rng);
        }
        final double micros = (System.nanoTime() - t0) / 1e3 / n;
        return String.format(
                "Java draw, vocab %d, top-p %.1f: %.2f us/token (checksum %d)",
                VOCAB, topP, micros, sink % 10);
    }

    private static int[] randomIds(final Random random, final int n) {
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = 10 + random.nextInt(VOCAB - 10);
        }
        return ids;
    }

    private static String tokenizer() {
        final Random random = new Random(2);
        final List<String> corpus = new ArrayList<>();
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            text.setLength(0);
            for (int w = 0; w < 12; w++) {
                text.append(' ').append(Integer.toString(random.nextInt(5000), 36));
            }
            corpus.add(text.toString());
        }
        return BpeTrainer.withDefaultSpecials(VOCAB).train(corpus);
    }
}
