package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.generate.Generator;
import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.MemoryEstimate;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.SharedPromptBatch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The two heavy loops of RWML at SmolLM2-135M's real dimensions (Llama, 30 layers, 576 wide, 9
 * heads, 3 KV heads, MLP 1536, 49,152-token vocabulary; random weights the benchmark writes, not a
 * download), each beside the same work in a plain loop, side by side in one run:
 *
 * <ul>
 *   <li>sampling G = 8 completions of one prompt with the generator (KV cache, one prefill of the
 *       prompt) against a loop that runs the whole sequence through the model for every new token;
 *   <li>a GRPO step (reference pass without a gradient, policy pass, loss, backward) over one
 *       prompt and its G = 8 completions as the trainer runs it ({@link SharedPromptBatch}: one
 *       pass over the prompt) against a copy of the prompt per sample ({@link SequenceBatch}), and
 *       the shared step once more through a LoRA adapter (r = 16 on the seven projections, the base
 *       frozen) as the trainer runs {@code --lora}.
 * </ul>
 *
 * <p>For each: tokens per second (completion tokens) and the peak resident memory of the process
 * above its level before the arm, sampled every 5 ms; beside the GRPO arms with a shared prompt,
 * what the trainer's memory check estimates for the step ({@link MemoryEstimate#trainingStep}, less
 * the AdamW moments, which a step without an optimizer does not hold). The sampler draws the full
 * length every time (a tokenizer that never ends a sample, so every arm does the same work).
 * Prints; asserts nothing. {@code -Dbench.g} changes G, {@code -Dbench.prompt} the prompt length.
 */
class SmolLm2ShapeBenchmark {

    private static final int G = Integer.getInteger("bench.g", 8);
    private static final int PROMPT = Integer.getInteger("bench.prompt", 128);
    private static final int NEW = 16;
    private static final int REPS = 1;

    /** The arms, each run in a JVM of its own so that none inherits another's allocations. */
    private static final List<String> ARMS =
            List.of("sampling-cached", "sampling-plain", "grpo-shared", "grpo-plain", "grpo-lora");

    @Test
    void benchmarkSamplingAndGrpoStep() throws Exception {
        final Path dir = Files.createTempDirectory("smollm2-shape");
        final List<String> lines = new ArrayList<>();
        try {
            final HfConfig config = RandomCheckpoints.smolLm2Shape(dir);
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "SmolLM2-135M shape (%.1f M parameters, F32 compute), G = %d, prompt %d"
                                    + " tokens, %d new tokens, one intra-op thread, each arm in its"
                                    + " own JVM:",
                            config.parameterCount() / 1e6,
                            G,
                            PROMPT,
                            NEW));
            final Map<String, double[]> results = new LinkedHashMap<>();
            for (final String arm : ARMS) {
                results.put(arm, fork(arm, dir));
            }
            lines.addAll(
                    comparison(
                            "sampling",
                            "generator (KV cache, prompt prefilled once)",
                            results.get("sampling-cached"),
                            "plain loop (whole sequence per token, no cache)",
                            results.get("sampling-plain")));
            lines.addAll(
                    comparison(
                            "GRPO step",
                            "prompt shared (what the trainer runs)",
                            results.get("grpo-shared"),
                            "plain (a copy of the prompt per sample)",
                            results.get("grpo-plain")));
            lines.add(
                    line(
                            "GRPO step, LoRA r=16 (prompt shared, base frozen)",
                            results.get("grpo-lora")));
        } finally {
            RandomCheckpoints.delete(dir);
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    /** Runs one arm in a child JVM on this classpath; its tokens/s and peak bytes. */
    private static double[] fork(final String arm, final Path dir) throws Exception {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // a small serial-collected heap: the arms' tensors are native, and a heap left to grow
        // with the JVM's defaults would add its own hundreds of MB to the resident memory
        command.add("-Xmx512m");
        command.add("-XX:+UseSerialGC");
        command.add("-Dai.djl.offline=true");
        command.add("-Dai.djl.pytorch.num_threads=1");
        command.add("-Dai.djl.pytorch.num_interop_threads=1");
        command.add("-Dbench.g=" + G);
        command.add("-Dbench.prompt=" + PROMPT);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SmolLm2ShapeBenchmark.class.getName());
        command.add(arm);
        command.add(dir.toString());
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // blocks of 128 KiB and more come from mmap and go back to the kernel when freed, so the
        // resident memory follows the live tensors, not what glibc kept from the model's load
        builder.environment().put("MALLOC_MMAP_THRESHOLD_", "131072");
        builder.environment().put("MALLOC_TRIM_THRESHOLD_", "131072");
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes());
        if (process.waitFor() != 0) {
            throw new IllegalStateException("arm " + arm + " failed:\n" + output);
        }
        final String result =
                output.lines()
                        .filter(l -> l.startsWith("RESULT "))
                        .reduce((a, b) -> b)
                        .orElseThrow(() -> new IllegalStateException("no result:\n" + output));
        final String[] parts = result.split(" ");
        return new double[] {
            Double.parseDouble(parts[1]), Double.parseDouble(parts[2]), Double.parseDouble(parts[3])
        };
    }

    /** Two arms of one kind of work and their ratios: tokens/s and peak memory. */
    private static List<String> comparison(
            final String work,
            final String fastName,
            final double[] fast,
            final String plainName,
            final double[] plain) {
        return List.of(
                line(work + ", " + fastName, fast),
                line(work + ", " + plainName, plain),
                String.format(
                        Locale.ROOT,
                        "  %s: %s / plain = %.2fx tokens/s, %.2fx peak memory",
                        work,
                        fastName.substring(0, fastName.indexOf(" (")),
                        fast[0] / plain[0],
                        fast[1] / Math.max(1, plain[1])));
    }

    private static String line(final String name, final double[] arm) {
        return String.format(
                        Locale.ROOT,
                        "  %-58s %7.1f tokens/s, peak memory +%,.1f MB",
                        name,
                        arm[0],
                        arm[1] / (1024 * 1024))
                + (arm[2] < 0
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                " (the trainer estimates %,.1f MB)",
                                arm[2] / (1024 * 1024)));
    }

    /**
     * One arm in this JVM: loads the checkpoint at {@code args[1]}, runs arm {@code args[0]} once
     * to warm up and {@link #REPS} times measured, and prints {@code RESULT <tokens/s> <peak bytes>
     * <estimated bytes>}: the process's resident high-water mark above its level after the model
     * was loaded, and the trainer's estimate of the step (-1 where there is none).
     */
    public static void main(final String[] args) throws Exception {
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(Path.of(args[1]), manager)) {
            final SplittableRandom random = new SplittableRandom(4);
            final int[] prompt = SharedPromptBenchmark.ids(random, model.vocabSize(), PROMPT);
            final Work work = work(args[0], model, manager, prompt, random);
            // the checkpoint's memory map is released by a cleaner after a collection: let it
            // finish, or its pages leaving would hide the arm's growth
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(300);
            }
            if (!PeakResidentMemory.resetHighWaterMark()) {
                throw new IllegalStateException(
                        "cannot reset VmHWM: peak memory would include the load");
            }
            final long base = PeakResidentMemory.resident();
            work.run();
            final long t0 = System.nanoTime();
            long tokens = 0;
            for (int i = 0; i < REPS; i++) {
                tokens += work.run();
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.println(
                    "RESULT "
                            + tokens / seconds
                            + " "
                            + (PeakResidentMemory.highWaterMark() - base)
                            + " "
                            + work.estimate());
        }
    }

    /** One arm's work. */
    private interface Work {
        /** Runs it once; the completion tokens. */
        long run();

        /** The trainer's estimate of its memory, in bytes; -1 where there is none. */
        default long estimate() {
            return -1;
        }
    }

    private static Work work(
            final String arm,
            final HfDecoder model,
            final NDManager manager,
            final int[] prompt,
            final SplittableRandom random) {
        if (arm.startsWith("sampling")) {
            final Generator generator =
                    new Generator(model, new NeverEndingTokenizer(model.vocabSize()));
            final SamplingParams params = new SamplingParams(1f, 1f, NEW, 7);
            DjlRuntime.setGradMode(false);
            return arm.equals("sampling-cached")
                    ? () ->
                            generator.generate(List.of(prompt), G, params).get(0).stream()
                                    .mapToLong(s -> s.tokenIds().length)
                                    .sum()
                    : () -> plainSampling(model, manager, prompt);
        }
        final List<SequenceBatch.Pair> pairs = new ArrayList<>();
        final List<float[]> behaviour = new ArrayList<>();
        for (int s = 0; s < G; s++) {
            final int[] completion =
                    SharedPromptBenchmark.ids(random, model.vocabSize(), NEW - s % 4);
            pairs.add(new SequenceBatch.Pair(prompt, completion));
            final float[] b = new float[completion.length];
            Arrays.fill(b, (float) -Math.log(model.vocabSize()));
            behaviour.add(b);
        }
        final float[] advantages = new float[G];
        for (int r = 0; r < G; r++) {
            advantages[r] = r % 2 == 0 ? 1f : -1f;
        }
        final long tokens = pairs.stream().mapToLong(p -> p.completion().length).sum();
        if (!arm.equals("grpo-plain")) {
            final HfDecoder policy =
                    arm.equals("grpo-lora")
                            ? model.withAdapter(
                                    LoraAdapter.create(
                                            model.config(), LoraConfig.parse("r=16"), 1, manager))
                            : model;
            model.setTrainable(policy == model);
            policy.setTrainable(true);
            final SharedPromptBatch shared = SharedPromptBatch.of(pairs, 0, model.maxContext());
            long trainable = 0;
            for (final NDArray p : policy.parameters().values()) {
                trainable += p.size();
            }
            // the benchmark runs no optimizer: no AdamW moments
            final long estimate =
                    MemoryEstimate.trainingStep(
                                            model.shape(),
                                            trainable,
                                            policy.adapterFloatsPerToken(),
                                            shared)
                                    .total()
                            - 2 * trainable * Float.BYTES;
            return new Work() {
                @Override
                public long run() {
                    SharedPromptBenchmark.sharedStep(
                            policy, manager, shared, behaviour, advantages);
                    return tokens;
                }

                @Override
                public long estimate() {
                    return estimate;
                }
            };
        }
        model.setTrainable(true);
        final SequenceBatch packed = SequenceBatch.of(pairs, 0, model.maxContext());
        return () -> {
            SharedPromptBenchmark.packedStep(model, manager, packed, behaviour, advantages);
            return tokens;
        };
    }

    /** G rows: every new token runs the whole sequence so far, then takes the top logit. */
    private static long plainSampling(
            final HfDecoder model, final NDManager manager, final int[] prompt) {
        final int total = prompt.length + NEW;
        final long[][] rows = new long[G][total];
        for (final long[] row : rows) {
            for (int t = 0; t < prompt.length; t++) {
                row[t] = prompt[t];
            }
        }
        for (int length = prompt.length; length < total; length++) {
            try (NDManager step = manager.newSubManager()) {
                final long[] ids = new long[G * length];
                final long[] pos = new long[G * length];
                for (int r = 0; r < G; r++) {
                    System.arraycopy(rows[r], 0, ids, r * length, length);
                    for (int t = 0; t < length; t++) {
                        pos[r * length + t] = t;
                    }
                }
                final float[] logits =
                        model.lastLogits(
                                        step.create(ids, new Shape(G, length)),
                                        step.create(pos, new Shape(G, length)),
                                        Masks.causal(step, length),
                                        null)
                                .toFloatArray();
                final int vocab = model.vocabSize();
                for (int r = 0; r < G; r++) {
                    int best = 0;
                    for (int v = 1; v < vocab; v++) {
                        if (logits[r * vocab + v] > logits[r * vocab + best]) {
                            best = v;
                        }
                    }
                    rows[r][length] = best;
                }
            }
        }
        return (long) G * NEW;
    }
}
