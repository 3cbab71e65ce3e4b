package dev.rwml.worldmodel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Training, scoring and sampling tokens per second at three sizes, and achieved GFLOP/s as a
 * fraction of a plain matmul's measured in the same run. Prints; asserts nothing.
 */
class WorldModelBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(WorldModelBenchmark.class);
    private static final int VOCAB = 1024;
    private static final int PROMPT = 96;
    private static final int COMPLETION = 32;
    private static final int BATCH = 16;

    @Test
    void benchmarkTrainScoreSample() {
        final double matmul = matmulGflops();
        final List<String> lines = new ArrayList<>();
        lines.add(String.format("plain matmul 512x512x512: %.1f GFLOP/s", matmul));
        for (final ModelConfig config :
                List.of(
                        ModelConfig.tiny(VOCAB),
                        ModelConfig.small(VOCAB),
                        ModelConfig.medium(VOCAB))) {
            lines.add(run(config, matmul));
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    private static String run(final ModelConfig config, final double matmul) {
        final String tokenizer = bigTokenizer();
        final Random random = new Random(1);
        try (WorldModel model = WorldModel.create(config, tokenizer, 1)) {
            final List<SequenceBatch.Pair> pairs = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
                pairs.add(
                        new SequenceBatch.Pair(
                                randomIds(random, PROMPT), randomIds(random, COMPLETION)));
            }
            final int seqTokens = BATCH * (PROMPT + COMPLETION);
            final double flopsPerToken = config.forwardFlopsPerToken((PROMPT + COMPLETION) / 2);
            // training: 3x forward FLOPs (forward + backward)
            final double trainSec;
            try (Trainer trainer = model.trainer(TrainConfig.grpo(1e-4), null, null)) {
                trainer.sftStep(pairs);
                final long t0 = System.nanoTime();
                final int steps = 3;
                for (int i = 0; i < steps; i++) {
                    trainer.sftStep(pairs);
                }
                trainSec = (System.nanoTime() - t0) / 1e9 / steps;
            }
            final double trainTps = seqTokens / trainSec;
            final double trainGflops = 3 * flopsPerToken * trainTps / 1e9;
            model.scorer().score(pairs);
            final long s0 = System.nanoTime();
            final int scores = 3;
            for (int i = 0; i < scores; i++) {
                model.scorer().score(pairs);
            }
            final double scoreSec = (System.nanoTime() - s0) / 1e9 / scores;
            final double scoreTps = seqTokens / scoreSec;
            final double scoreGflops = flopsPerToken * scoreTps / 1e9;
            final List<int[]> prompts = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                prompts.add(randomIds(random, PROMPT));
            }
            // no stop token among random ids above the specials: every sample runs to the limit
            final SamplingParams params = new SamplingParams(1f, 1f, COMPLETION, 7);
            final long g0 = System.nanoTime();
            final var groups = model.generator().generate(prompts, 8, params);
            final double genSec = (System.nanoTime() - g0) / 1e9;
            int generated = 0;
            for (final var g : groups) {
                for (final var s : g) {
                    generated += s.tokenIds().length;
                }
            }
            final double sampleTps = generated / genSec;
            return String.format(
                    "%-6s d%d L%d (%.2fM params): train %.0f tok/s (%.1f GFLOP/s, %.2f of matmul),"
                            + " score %.0f tok/s (%.1f GFLOP/s, %.2f), sample G=8x2 %.0f tok/s",
                    name(config),
                    config.dModel(),
                    config.layers(),
                    config.parameterCount() / 1e6,
                    trainTps,
                    trainGflops,
                    trainGflops / matmul,
                    scoreTps,
                    scoreGflops,
                    scoreGflops / matmul,
                    sampleTps);
        }
    }

    private static String name(final ModelConfig c) {
        return c.dModel() == 32 ? "tiny" : c.dModel() == 128 ? "small" : "medium";
    }

    private static double matmulGflops() {
        try (NDManager m = DjlRuntime.newManager()) {
            final NDArray a = m.randomUniform(-1, 1, new Shape(512, 512));
            final NDArray b = m.randomUniform(-1, 1, new Shape(512, 512));
            a.matMul(b).close();
            final int reps = 20;
            final long t0 = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                a.matMul(b).close();
            }
            final double sec = (System.nanoTime() - t0) / 1e9;
            return 2.0 * 512 * 512 * 512 * reps / sec / 1e9;
        }
    }

    private static int[] randomIds(final Random random, final int n) {
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = 10 + random.nextInt(VOCAB - 10);
        }
        return ids;
    }

    private static String bigTokenizer() {
        final StringBuilder text = new StringBuilder();
        final Random random = new Random(2);
        final List<String> corpus = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            text.setLength(0);
            for (int w = 0; w < 12; w++) {
                text.append(' ').append(Integer.toString(random.nextInt(5000), 36));
            }
            corpus.add(text.toString());
        }
        return dev.rwml.worldmodel.tokenizer.BpeTrainer.withDefaultSpecials(VOCAB).train(corpus);
    }
}
