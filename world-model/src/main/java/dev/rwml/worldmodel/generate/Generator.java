package dev.rwml.worldmodel.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.prompt.NextStateParser;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws G samples for each of several prompts in one batch (prompts x G rows) with a KV cache: each
 * prompt is prefilled once and its cache repeated for its G samples, then every step feeds one
 * token per row. Sampling (temperature, top-p) runs in Java on the last position's logits, one
 * seeded random stream per (prompt, sample), so results are reproducible.
 */
public final class Generator {

    private final TransformerLM model;
    private final WorldModelTokenizer tokenizer;

    /** A generator for a model and the tokenizer it was trained with. */
    public Generator(final TransformerLM model, final WorldModelTokenizer tokenizer) {
        if (tokenizer.vocabSize() > model.config().vocabSize()) {
            throw new IllegalArgumentException(
                    "tokenizer has "
                            + tokenizer.vocabSize()
                            + " ids but the model only "
                            + model.config().vocabSize());
        }
        this.model = model;
        this.tokenizer = tokenizer;
    }

    /** G samples per prompt, in prompt order; a sample list per prompt. */
    public List<List<Sample>> generate(
            final List<int[]> prompts, final int samplesPerPrompt, final SamplingParams params) {
        if (prompts.isEmpty()) {
            return List.of();
        }
        if (samplesPerPrompt <= 0) {
            throw new IllegalArgumentException(
                    "samplesPerPrompt must be positive, got " + samplesPerPrompt);
        }
        final int promptCount = prompts.size();
        final int g = samplesPerPrompt;
        final int rows = promptCount * g;
        final int vocab = model.config().vocabSize();
        int longest = 0;
        for (final int[] p : prompts) {
            if (p.length == 0) {
                throw new IllegalArgumentException("every prompt needs at least one token");
            }
            longest = Math.max(longest, p.length);
        }
        final int maxNew = Math.min(params.maxNewTokens(), model.config().maxContext() - longest);
        if (maxNew <= 0) {
            throw new IllegalArgumentException(
                    "prompt of "
                            + longest
                            + " tokens leaves no room in the model context of "
                            + model.config().maxContext()
                            + ": build prompts with PromptFormat.build and a smaller budget");
        }
        final int capacity = longest + maxNew;
        final int[] promptPad = new int[promptCount];
        final int[] rowPad = new int[rows];
        for (int p = 0; p < promptCount; p++) {
            promptPad[p] = longest - prompts.get(p).length;
            Arrays.fill(rowPad, p * g, (p + 1) * g, promptPad[p]);
        }
        final SplittableRandom[] random = new SplittableRandom[rows];
        for (int r = 0; r < rows; r++) {
            random[r] = new SplittableRandom(mix(params.seed(), r / g, r % g));
        }
        final int[][] tokens = new int[rows][maxNew];
        final float[][] logProbs = new float[rows][maxNew];
        final int[] produced = new int[rows];
        final Sample.StopReason[] stop = new Sample.StopReason[rows];

        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager gen = DjlRuntime.newManager()) {
            float[] logits;
            KvCache cache;
            try (KvCache prefill = new KvCache(gen, model.config(), promptCount, capacity);
                    NDManager step = gen.newSubManager()) {
                logits = prefill(step, prompts, promptPad, longest, prefill);
                cache = prefill.repeatRows(gen, g);
            }
            final NDArray keyBias = Masks.keyPadding(gen, rowPad, capacity);
            int active = rows;
            for (int s = 0; s < maxNew && active > 0; s++) {
                final long[] next = new long[rows];
                final long[] positions = new long[rows];
                for (int r = 0; r < rows; r++) {
                    positions[r] = longest - rowPad[r] + s;
                    if (stop[r] != null) {
                        next[r] = tokenizer.padId();
                        continue;
                    }
                    // the first step reads the prompt's logits, shared by its G rows
                    final int logitRow = s == 0 ? r / g : r;
                    final int token = sample(logits, logitRow * vocab, vocab, params, random[r]);
                    tokens[r][s] = token;
                    logProbs[r][s] = logProb(logits, logitRow * vocab, vocab, token);
                    produced[r] = s + 1;
                    next[r] = token;
                    if (token == tokenizer.nextStateCloseId()) {
                        stop[r] = Sample.StopReason.NEXT_STATE_CLOSED;
                    } else if (token == tokenizer.endOfTextId()) {
                        stop[r] = Sample.StopReason.END_OF_TEXT;
                    }
                    if (stop[r] != null) {
                        active--;
                    }
                }
                if (active == 0 || s + 1 == maxNew) {
                    break;
                }
                try (NDManager step = gen.newSubManager()) {
                    final NDArray ids = step.create(next, new Shape(rows, 1));
                    final NDArray pos = step.create(positions, new Shape(rows, 1));
                    final NDArray bias = keyBias.get(":, :, :, :{}", longest + s + 1);
                    bias.attach(step);
                    logits = model.forward(ids, pos, bias, cache).toFloatArray();
                }
            }
            cache.close();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
        return collect(prompts.size(), g, tokens, logProbs, produced, stop);
    }

    private float[] prefill(
            final NDManager step,
            final List<int[]> prompts,
            final int[] pad,
            final int longest,
            final KvCache cache) {
        final int n = prompts.size();
        final long[] ids = new long[n * longest];
        final long[] pos = new long[n * longest];
        Arrays.fill(ids, tokenizer.padId());
        for (int p = 0; p < n; p++) {
            final int[] prompt = prompts.get(p);
            for (int t = 0; t < longest; t++) {
                pos[p * longest + t] = Math.max(0, t - pad[p]);
            }
            for (int i = 0; i < prompt.length; i++) {
                ids[p * longest + pad[p] + i] = prompt[i];
            }
        }
        final NDArray logits =
                model.forward(
                        step.create(ids, new Shape(n, longest)),
                        step.create(pos, new Shape(n, longest)),
                        Masks.causalLeftPadded(step, pad, longest),
                        cache);
        return logits.get(":, -1, :").toFloatArray();
    }

    private List<List<Sample>> collect(
            final int promptCount,
            final int g,
            final int[][] tokens,
            final float[][] logProbs,
            final int[] produced,
            final Sample.StopReason[] stop) {
        final List<List<Sample>> out = new ArrayList<>(promptCount);
        for (int p = 0; p < promptCount; p++) {
            final List<Sample> group = new ArrayList<>(g);
            for (int j = 0; j < g; j++) {
                final int r = p * g + j;
                final int[] ids = Arrays.copyOf(tokens[r], produced[r]);
                final Sample.StopReason reason =
                        stop[r] == null ? Sample.StopReason.LENGTH : stop[r];
                final int textLength =
                        reason == Sample.StopReason.END_OF_TEXT ? ids.length - 1 : ids.length;
                final String text = tokenizer.decode(Arrays.copyOf(ids, textLength));
                group.add(
                        new Sample(
                                ids,
                                Arrays.copyOf(logProbs[r], produced[r]),
                                text,
                                NextStateParser.parse(text),
                                reason));
            }
            out.add(List.copyOf(group));
        }
        return List.copyOf(out);
    }

    /** log softmax(logits)[token] at temperature 1, in double precision. */
    static float logProb(final float[] logits, final int offset, final int vocab, final int token) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < vocab; i++) {
            max = Math.max(max, logits[offset + i]);
        }
        double sum = 0;
        for (int i = 0; i < vocab; i++) {
            sum += Math.exp(logits[offset + i] - max);
        }
        return (float) (logits[offset + token] - max - Math.log(sum));
    }

    /** Draws a token from softmax(logits / temperature) restricted to the top-p nucleus. */
    static int sample(
            final float[] logits,
            final int offset,
            final int vocab,
            final SamplingParams params,
            final SplittableRandom random) {
        int argmax = 0;
        for (int i = 1; i < vocab; i++) {
            if (logits[offset + i] > logits[offset + argmax]) {
                argmax = i;
            }
        }
        if (params.temperature() == 0f) {
            return argmax;
        }
        final double max = logits[offset + argmax];
        final double[] weights = new double[vocab];
        double total = 0;
        for (int i = 0; i < vocab; i++) {
            weights[i] = Math.exp((logits[offset + i] - max) / params.temperature());
            total += weights[i];
        }
        if (params.topP() >= 1f) {
            double u = random.nextDouble() * total;
            for (int i = 0; i < vocab; i++) {
                u -= weights[i];
                if (u < 0) {
                    return i;
                }
            }
            return argmax;
        }
        // nucleus: most likely first; ties by id so the order, hence the sample, is reproducible
        final long[] order = new long[vocab];
        for (int i = 0; i < vocab; i++) {
            order[i] = ((long) Float.floatToIntBits((float) (weights[i] / total)) << 32) | i;
        }
        Arrays.sort(order);
        double kept = 0;
        int first = vocab - 1;
        for (int k = vocab - 1; k >= 0; k--) {
            kept += weights[(int) order[k]];
            first = k;
            if (kept >= params.topP() * total) {
                break;
            }
        }
        double u = random.nextDouble() * kept;
        for (int k = vocab - 1; k >= first; k--) {
            u -= weights[(int) order[k]];
            if (u < 0) {
                return (int) order[k];
            }
        }
        return (int) order[first];
    }

    private static long mix(final long seed, final int prompt, final int sample) {
        long h = seed * 0x9E3779B97F4A7C15L + prompt * 0xBF58476D1CE4E5B9L + sample;
        h ^= h >>> 31;
        h *= 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }
}
