package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.generate.Generator;
import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.PackedLinear;
import dev.rwml.worldmodel.model.StepProfile;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.model.VectorKernels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Where a decode step's time goes, beside the machine's bounds measured in the same run, on one
 * PyTorch thread (the project's default). Every time is CPU time of the benchmark's thread, on
 * which the engine computes with one intra-op thread, so that other processes sharing the machine
 * do not count (each step's wall time is printed beside):
 *
 * <ul>
 *   <li>at SmolLM2-135M's shape (random weights the benchmark writes, F32 compute; a 64-token
 *       prompt, then {@link #NEW} steps with G = 1, 8 and 16 rows): per step, the milliseconds in
 *       the projections, attention (KV-cache writes and head grouping included), the final norm and
 *       LM head, the log-softmax and its copy to Java, the sampler, and the rest; the engine arrays
 *       a forward creates; tokens/s beside the lower of two bounds: the bytes a step must read
 *       (weights once, plus the rows' KV cache) over the bandwidth of a streaming read, and the
 *       step's matmuls timed with their weights in cache (by the engine and by the Java kernel, the
 *       faster counting); and prefill of the prompt; all of it twice, decode steps multiplied by
 *       the engine and then by the Vector API kernel ({@link PackedLinear}), with the ratio of the
 *       two per G;
 *   <li>the small model of the demo (d128, 2 layers, vocabulary 1024), 8 prompts x G = 8: tokens/s,
 *       the same split of a step, and the share of it that is per-op overhead (a forward's arrays
 *       times the cost of a trivial op).
 * </ul>
 *
 * Prints; asserts nothing; about 4 minutes. {@code -Dbench.new} changes the decode steps. To
 * compare with an earlier decoder, run the same benchmark classes against that commit's main
 * classes, alternating the two builds (docs/measured-figures.md lists such a run).
 */
class DecodeStepBenchmark {

    private static final int PROMPT = 64;
    private static final int NEW = Integer.getInteger("bench.new", 48);
    private static final int[] GROUPS = {1, 8, 16};

    /** {@link VectorKernels#SETTING} of each arm: the engine's matmul, then the Java kernel. */
    private static final List<String> ARMS = List.of("engine", "vector");

    /** One G's lines and its decode tokens/s. */
    private record Decoded(List<String> lines, double tokensPerSecond) {}

    @Test
    void benchmarkDecodeStepAtSmolLm2Shape() throws Exception {
        final Path dir = Files.createTempDirectory("decode-step");
        final List<String> lines = new ArrayList<>();
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager manager = DjlRuntime.newManager()) {
            final HfConfig config = RandomCheckpoints.smolLm2Shape(dir);
            final double bandwidth = streamingRead(manager);
            final long weightBytes = config.parameterCount() * Float.BYTES;
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "SmolLM2-135M shape, F32, one thread: %.1f M parameters = %.0f MB"
                                    + " read per step; streaming read %.1f GB/s; prompt %d, %d"
                                    + " decode steps",
                            config.parameterCount() / 1e6,
                            weightBytes / 1e6,
                            bandwidth / 1e9,
                            PROMPT,
                            NEW));
            final Map<Integer, double[]> hot = new TreeMap<>();
            for (final int g : GROUPS) {
                hot.put(g, hotMatmulMillis(manager, config, g));
            }
            final SplittableRandom random = new SplittableRandom(4);
            final int[] prompt = SharedPromptBenchmark.ids(random, config.vocabSize(), PROMPT);
            final Map<String, double[]> tokensPerSecond = new LinkedHashMap<>();
            for (final String arm : ARMS) {
                System.setProperty(VectorKernels.SETTING, arm);
                try (HfDecoder model = HfDecoder.load(dir, manager)) {
                    lines.add(
                            "decode steps multiplied by "
                                    + (model.packsDecodeSteps()
                                            ? "the Vector API kernel (PackedLinear)"
                                            : "the engine (MKL)"));
                    lines.add(prefill(model, manager, prompt));
                    final double[] perG = new double[GROUPS.length];
                    for (int i = 0; i < GROUPS.length; i++) {
                        final int g = GROUPS[i];
                        final Decoded d =
                                decode(model, manager, config, prompt, g, bandwidth, hot.get(g));
                        lines.addAll(d.lines());
                        perG[i] = d.tokensPerSecond();
                    }
                    tokensPerSecond.put(arm, perG);
                } finally {
                    System.clearProperty(VectorKernels.SETTING);
                }
            }
            final StringBuilder ratios = new StringBuilder("Vector API kernel / engine, tokens/s:");
            for (int i = 0; i < GROUPS.length; i++) {
                ratios.append(
                        String.format(
                                Locale.ROOT,
                                " G = %d %.2fx;",
                                GROUPS[i],
                                tokensPerSecond.get("vector")[i]
                                        / tokensPerSecond.get("engine")[i]));
            }
            lines.add(ratios.toString());
        } finally {
            DjlRuntime.setGradMode(grad);
            RandomCheckpoints.delete(dir);
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    @Test
    void benchmarkSmallModelGeneration() {
        final boolean grad = DjlRuntime.setGradMode(false);
        final List<String> lines = new ArrayList<>();
        try (NDManager manager = DjlRuntime.newManager();
                TransformerLM model =
                        TransformerLM.initialise(ModelConfig.small(1024), 3, manager)) {
            final int prompts = 8;
            final int g = 8;
            final int promptLength = 96;
            final int steps = 32;
            final SplittableRandom random = new SplittableRandom(6);
            final List<int[]> batch = new ArrayList<>();
            for (int i = 0; i < prompts; i++) {
                batch.add(SharedPromptBenchmark.ids(random, model.vocabSize(), promptLength));
            }
            final StepProfile profile = new StepProfile();
            final Generator generator =
                    new Generator(model, new NeverEndingTokenizer(model.vocabSize()), profile);
            final SamplingParams params = new SamplingParams(1f, 1f, steps, 7);
            generator.generate(batch, g, params);
            final StepProfile measured = new StepProfile();
            final Generator timed =
                    new Generator(
                            model.profiled(measured),
                            new NeverEndingTokenizer(model.vocabSize()),
                            measured);
            final long t0 = StepProfile.cpuNanos();
            for (int rep = 0; rep < 3; rep++) {
                timed.generate(batch, g, params);
            }
            final double seconds = (StepProfile.cpuNanos() - t0) / 1e9;
            final int rows = prompts * g;
            final int arrays = arraysPerForward(model, manager, rows, promptLength + steps / 2);
            final double opMicros = trivialOpMicros(manager);
            final double step = measured.millisPerStep();
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "small model (d128 L2, vocab 1024), %d prompts x G = %d, prompt %d, %d"
                                    + " new: generation %.0f tokens/s (prefill included); decode"
                                    + " %.0f tokens/s, %.2f ms per step (wall %.2f ms)",
                            prompts,
                            g,
                            promptLength,
                            steps,
                            3.0 * rows * steps / seconds,
                            rows / step * 1e3,
                            step,
                            measured.wallMillisPerStep()));
            lines.add(split(measured));
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "         per-op overhead: %d arrays per forward x %.1f us per trivial"
                                    + " op = %.2f ms, %.2f of the step",
                            arrays,
                            opMicros,
                            arrays * opMicros / 1e3,
                            arrays * opMicros / 1e3 / step));
        } finally {
            DjlRuntime.setGradMode(grad);
        }
        lines.forEach(System.out::println);
    }

    /** Tokens/s of one 64-token prompt's prefill (best of three) into a cache. */
    private static String prefill(
            final HfDecoder model, final NDManager manager, final int[] prompt) {
        long best = Long.MAX_VALUE;
        for (int rep = 0; rep < 4; rep++) {
            try (NDManager step = manager.newSubManager();
                    KvCache cache = model.newCache(step, 1, PROMPT + 1)) {
                final long[] ids = new long[PROMPT];
                final long[] pos = new long[PROMPT];
                for (int t = 0; t < PROMPT; t++) {
                    ids[t] = prompt[t];
                    pos[t] = t;
                }
                final long t0 = StepProfile.cpuNanos();
                model.lastLogits(
                                step.create(ids, new Shape(1, PROMPT)),
                                step.create(pos, new Shape(1, PROMPT)),
                                Masks.causal(step, PROMPT),
                                cache)
                        .toFloatArray();
                if (rep > 0) {
                    best = Math.min(best, StepProfile.cpuNanos() - t0);
                }
            }
        }
        return String.format(
                Locale.ROOT,
                "  prefill, %d tokens: %.0f tokens/s (%.0f ms)",
                PROMPT,
                PROMPT / (best / 1e9),
                best / 1e6);
    }

    /**
     * One G's decode: the profile of a step beside the bounds; {@code hot} holds the step's matmuls
     * in cache by the engine and by the Java kernel, the faster being the compute bound.
     */
    private static Decoded decode(
            final HfDecoder model,
            final NDManager manager,
            final HfConfig config,
            final int[] prompt,
            final int g,
            final double bandwidth,
            final double[] hot) {
        final StepProfile warm = new StepProfile();
        final SamplingParams warmParams = new SamplingParams(1f, 1f, 8, 7);
        new Generator(model.profiled(warm), new NeverEndingTokenizer(config.vocabSize()), warm)
                .generate(List.of(prompt), g, warmParams);
        final StepProfile profile = new StepProfile();
        new Generator(
                        model.profiled(profile),
                        new NeverEndingTokenizer(config.vocabSize()),
                        profile)
                .generate(List.of(prompt), g, new SamplingParams(1f, 1f, NEW + 1, 7));
        final double step = profile.millisPerStep();
        // every row reads its own keys and values of every layer, on average half way through
        final double meanContext = PROMPT + NEW / 2.0;
        final double kvBytes =
                2.0 * config.layers() * g * config.kvHeads() * config.headDim() * meanContext * 4;
        final double bytes = config.parameterCount() * 4.0 + kvBytes;
        final double bandwidthMs = bytes / bandwidth * 1e3;
        final double computeMs = Math.min(hot[0], hot[1]);
        final double boundMs = Math.max(bandwidthMs, computeMs);
        final List<String> lines = new ArrayList<>();
        lines.add(
                String.format(
                        Locale.ROOT,
                        "  G = %2d: %.1f tokens/s, %.1f ms per step (wall %.1f ms); bound %.1f"
                                + " tokens/s (read %.0f MB at %.1f ms, matmuls in cache %.1f ms"
                                + " by the engine, %.1f ms by the Java kernel): %.2f of the bound,"
                                + " %.2f of the bandwidth bound; %d arrays per forward",
                        g,
                        g / step * 1e3,
                        step,
                        profile.wallMillisPerStep(),
                        g / boundMs * 1e3,
                        bytes / 1e6,
                        bandwidthMs,
                        hot[0],
                        hot[1],
                        boundMs / step,
                        bandwidthMs / step,
                        arraysPerForward(model, manager, g, PROMPT)));
        lines.add(split(profile));
        return new Decoded(lines, g / step * 1e3);
    }

    /** The parts of a mean step: milliseconds and fraction of the step. */
    private static String split(final StepProfile profile) {
        final StringBuilder split = new StringBuilder("         per step:");
        for (final Map.Entry<StepProfile.Part, Double> e : profile.partsPerStep().entrySet()) {
            split.append(
                    String.format(
                            Locale.ROOT,
                            " %s %.2f ms (%.2f)",
                            e.getKey().name().toLowerCase(Locale.ROOT),
                            e.getValue(),
                            e.getValue() / profile.millisPerStep()));
        }
        return split.toString();
    }

    /** Bytes per second of summing a 512 MiB array in the engine (best of three). */
    private static double streamingRead(final NDManager manager) {
        final long elements = 1L << 27;
        long best = Long.MAX_VALUE;
        try (NDManager m = manager.newSubManager()) {
            final NDArray big = m.ones(new Shape(elements), DataType.FLOAT32);
            for (int rep = 0; rep < 4; rep++) {
                final long t0 = StepProfile.cpuNanos();
                big.sum().getFloat();
                best = Math.min(best, StepProfile.cpuNanos() - t0);
            }
        }
        return elements * 4.0 / (best / 1e9);
    }

    /**
     * Milliseconds of one step's matmuls (the seven projections of every layer and the LM head) at
     * {@code rows} rows with their weights in cache: what the step would cost if reading weights
     * were free. The head is timed on a slice of the vocabulary and scaled.
     */
    private static double[] hotMatmulMillis(
            final NDManager manager, final HfConfig config, final int rows) {
        final int d = config.hiddenSize();
        final int kv = config.kvHeads() * config.headDim();
        final int q = config.heads() * config.headDim();
        final int mlp = config.intermediateSize();
        final int slice = 4096;
        final double[] both = new double[2];
        for (int kernel = 0; kernel < 2; kernel++) {
            final boolean java = kernel == 1;
            final double layer =
                    hot(manager, rows, d, q, java)
                            + 2 * hot(manager, rows, d, kv, java)
                            + hot(manager, rows, q, d, java)
                            + 2 * hot(manager, rows, d, mlp, java)
                            + hot(manager, rows, mlp, d, java);
            final double head = hot(manager, rows, d, slice, java) * config.vocabSize() / slice;
            both[kernel] = config.layers() * layer + head;
        }
        return both;
    }

    /**
     * Best milliseconds of (rows, in) x (out, in)^T with the weight in cache, by the engine or by
     * the Java kernel.
     */
    private static double hot(
            final NDManager manager,
            final int rows,
            final int in,
            final int out,
            final boolean javaKernel) {
        try (NDManager m = manager.newSubManager()) {
            final NDArray x = m.randomUniform(-1, 1, new Shape(rows, 1, in));
            final NDArray w = m.randomUniform(-1, 1, new Shape(out, in));
            final PackedLinear packed = javaKernel ? PackedLinear.of(w, null) : null;
            long best = Long.MAX_VALUE;
            // the first 30 warm up (the Java kernel is compiled by then), the next 30 are timed
            for (int rep = 0; rep < 60; rep++) {
                try (NDManager step = m.newSubManager()) {
                    final long t0 = StepProfile.cpuNanos();
                    final NDArray y =
                            javaKernel
                                    ? packed.apply(x)
                                    : ai.djl.nn.core.Linear.linear(x, w).singletonOrThrow();
                    if (rep >= 30) {
                        best = Math.min(best, StepProfile.cpuNanos() - t0);
                    }
                    y.attach(step);
                }
            }
            return best / 1e6;
        }
    }

    /** Engine arrays one decode forward of {@code rows} rows at {@code context} creates. */
    private static int arraysPerForward(
            final CausalLM model, final NDManager manager, final int rows, final int context) {
        try (NDManager m = manager.newSubManager();
                KvCache cache = model.newCache(m, rows, context + 1)) {
            try (NDManager step = m.newSubManager()) {
                final long[] ids = new long[rows * context];
                final long[] pos = new long[rows * context];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = 1 + i % 50;
                    pos[i] = i % context;
                }
                model.forward(
                        step.create(ids, new Shape(rows, context)),
                        step.create(pos, new Shape(rows, context)),
                        Masks.causal(step, context),
                        cache);
            }
            try (NDManager step = m.newSubManager()) {
                final long[] ids = new long[rows];
                final long[] pos = new long[rows];
                java.util.Arrays.fill(pos, context);
                final NDArray idArray = step.create(ids, new Shape(rows, 1));
                final NDArray posArray = step.create(pos, new Shape(rows, 1));
                final int before = step.getManagedArrays().size();
                model.forward(idArray, posArray, null, cache);
                return step.getManagedArrays().size() - before;
            }
        }
    }

    /** Microseconds of one small engine op from Java (result array, JNI call, the op). */
    private static double trivialOpMicros(final NDManager manager) {
        try (NDManager m = manager.newSubManager()) {
            final NDArray a = m.ones(new Shape(1));
            long best = Long.MAX_VALUE;
            for (int rep = 0; rep < 5; rep++) {
                try (NDManager step = m.newSubManager()) {
                    final NDArray x = a.duplicate();
                    x.attach(step);
                    final long t0 = StepProfile.cpuNanos();
                    NDArray y = x;
                    for (int i = 0; i < 2000; i++) {
                        y = y.add(x);
                    }
                    best = Math.min(best, StepProfile.cpuNanos() - t0);
                }
            }
            return best / 1e3 / 2000;
        }
    }
}
