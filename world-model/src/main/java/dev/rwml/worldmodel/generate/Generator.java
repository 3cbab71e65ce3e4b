package dev.rwml.worldmodel.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.StepProfile;
import dev.rwml.worldmodel.model.StepProfile.Part;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws G samples for each of several prompts in one batch (prompts x G rows) with a KV cache: each
 * prompt is prefilled once and its cache repeated for its G samples, then every step feeds one
 * token per row. The engine normalises each step's last-position logits (log-softmax for the
 * behaviour log-probs, softmax at the temperature); Java only draws the token (top-p over a
 * candidate set, see {@link TokenSampler}), one seeded random stream per (prompt, sample), so
 * results are reproducible.
 */
public final class Generator {

    private final CausalLM model;
    private final GenerationTokenizer tokenizer;
    private final StepProfile profile;

    /** A generator for a model and the tokenizer it was trained with. */
    public Generator(final CausalLM model, final GenerationTokenizer tokenizer) {
        this(model, tokenizer, null);
    }

    /**
     * A generator that times each decode step (the forward, the normalisation, the draws; prefill
     * left out) into {@code profile}, for benchmarks; give it a model timing into the same profile
     * to split the forward into its parts.
     */
    public Generator(
            final CausalLM model, final GenerationTokenizer tokenizer, final StepProfile profile) {
        if (tokenizer.vocabSize() > model.vocabSize()) {
            throw new IllegalArgumentException(
                    "tokenizer has "
                            + tokenizer.vocabSize()
                            + " ids but the model only "
                            + model.vocabSize());
        }
        this.model = model;
        this.tokenizer = tokenizer;
        this.profile = profile;
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
        final int vocab = model.vocabSize();
        int longest = 0;
        for (final int[] p : prompts) {
            if (p.length == 0) {
                throw new IllegalArgumentException("every prompt needs at least one token");
            }
            longest = Math.max(longest, p.length);
        }
        final int maxNew = Math.min(params.maxNewTokens(), model.maxContext() - longest);
        if (maxNew <= 0) {
            throw new IllegalArgumentException(
                    "prompt of "
                            + longest
                            + " tokens leaves no room in the model context of "
                            + model.maxContext()
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

        final TokenSampler sampler = new TokenSampler(vocab);
        final boolean greedy = params.temperature() == 0f;
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager gen = DjlRuntime.newManager()) {
            Distributions dist;
            KvCache cache;
            try (KvCache prefill = model.newCache(gen, promptCount, capacity);
                    NDManager step = gen.newSubManager()) {
                dist = prefill(step, prompts, promptPad, longest, prefill, params.temperature());
                final long[] promptOfRow = new long[rows];
                for (int r = 0; r < rows; r++) {
                    promptOfRow[r] = r / g;
                }
                cache = prefill.selectRows(gen, promptOfRow);
            }
            final NDArray keyBias = Masks.keyPadding(gen, rowPad, capacity);
            final long[] next = new long[rows];
            final long[] positions = new long[rows];
            int active = rows;
            for (int s = 0; s < maxNew && active > 0; s++) {
                for (int r = 0; r < rows; r++) {
                    positions[r] = longest - rowPad[r] + s;
                    if (stop[r] != null) {
                        next[r] = tokenizer.padId();
                        continue;
                    }
                    // the first step reads the prompt's distribution, shared by its G rows
                    final int offset = (s == 0 ? r / g : r) * vocab;
                    final int token =
                            greedy
                                    ? sampler.argmax(dist.logProbs(), offset)
                                    : sampler.draw(dist.probs(), offset, params.topP(), random[r]);
                    tokens[r][s] = token;
                    logProbs[r][s] = dist.logProbs()[offset + token];
                    produced[r] = s + 1;
                    next[r] = token;
                    if (tokenizer.isEnd(token)) {
                        stop[r] = Sample.StopReason.END_OF_TEXT;
                    } else if (tokenizer.closesNextState(tokens[r], s + 1)) {
                        stop[r] = Sample.StopReason.NEXT_STATE_CLOSED;
                    }
                    if (stop[r] != null) {
                        active--;
                    }
                }
                if (profile != null && s > 0) {
                    // a step runs from its forward to the draws from its distribution
                    profile.lap(Part.SAMPLER);
                    profile.end();
                }
                if (active == 0 || s + 1 == maxNew) {
                    break;
                }
                if (profile != null) {
                    profile.begin();
                }
                try (NDManager step = gen.newSubManager()) {
                    final NDArray ids = step.create(next, new Shape(rows, 1));
                    final NDArray pos = step.create(positions, new Shape(rows, 1));
                    final NDArray bias = keyBias.get(":, :, :, :{}", longest + s + 1);
                    bias.attach(step);
                    final NDArray logits = model.forward(ids, pos, bias, cache);
                    if (profile != null) {
                        profile.lap(Part.OTHER);
                    }
                    dist = distributions(logits, params.temperature());
                    if (profile != null) {
                        profile.lap(Part.NORMALISE);
                    }
                }
            }
            cache.close();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
        return collect(prompts.size(), g, tokens, logProbs, produced, stop);
    }

    /**
     * Per row, the log-probabilities at temperature 1 (the behaviour log-probs) and, unless greedy,
     * the probabilities at the sampling temperature: both normalised by the engine, so Java
     * computes no exponential.
     */
    private record Distributions(float[] logProbs, float[] probs) {}

    private static Distributions distributions(final NDArray logits, final float temperature) {
        final NDArray logp = logits.logSoftmax(-1);
        if (temperature == 0f) {
            return new Distributions(logp.toFloatArray(), null);
        }
        final NDArray probs = temperature == 1f ? logp.exp() : logits.div(temperature).softmax(-1);
        return new Distributions(logp.toFloatArray(), probs.toFloatArray());
    }

    private Distributions prefill(
            final NDManager step,
            final List<int[]> prompts,
            final int[] pad,
            final int longest,
            final KvCache cache,
            final float temperature) {
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
        return distributions(
                model.lastLogits(
                        step.create(ids, new Shape(n, longest)),
                        step.create(pos, new Shape(n, longest)),
                        Masks.causalLeftPadded(step, pad, longest),
                        cache),
                temperature);
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
                group.add(
                        Sample.completed(
                                Arrays.copyOf(tokens[r], produced[r]),
                                Arrays.copyOf(logProbs[r], produced[r]),
                                stop[r] == null ? Sample.StopReason.LENGTH : stop[r],
                                tokenizer::decode));
            }
            out.add(List.copyOf(group));
        }
        return List.copyOf(out);
    }

    private static long mix(final long seed, final int prompt, final int sample) {
        long h = seed * 0x9E3779B97F4A7C15L + prompt * 0xBF58476D1CE4E5B9L + sample;
        h ^= h >>> 31;
        h *= 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }
}
