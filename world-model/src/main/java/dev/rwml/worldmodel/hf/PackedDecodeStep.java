package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.PackedLinear;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One decode step of {@link HfDecoder} done in Java on float arrays: per layer the RMSNorms, the
 * projections by {@link PackedLinear}, the query/key norms, the rotary embedding, grouped-query
 * attention over the KV cache (held in Java from the step's first layer on, {@link
 * KvCache#onHost}), the SwiGLU and the residual additions, so that a step enters the engine only
 * for its embedding and what follows the hidden state. The same operations as {@link HfDecoder}'s
 * NDArray code, in float32; only the order of some sums differs.
 */
final class PackedDecodeStep {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    private final HfConfig config;
    private final Map<String, NDArray> params;
    private final Map<String, PackedLinear> packed = new ConcurrentHashMap<>();
    private final Map<String, float[]> vectors = new ConcurrentHashMap<>();
    private final float[] invFreq;

    PackedDecodeStep(
            final HfConfig config, final Map<String, NDArray> params, final float[] invFreq) {
        this.config = config;
        this.params = params;
        this.invFreq = invFreq;
    }

    /** Drops every copy of the weights, to be made again on next use: they may have changed. */
    void forget() {
        packed.clear();
        vectors.clear();
    }

    /**
     * The packed weight {@code name} (its {@code .weight} and {@code .bias}), packed on first use.
     */
    PackedLinear linear(final String name) {
        return packed.computeIfAbsent(
                name + ".weight", n -> PackedLinear.of(params.get(n), params.get(name + ".bias")));
    }

    /** A norm's weight as floats, copied on first use. */
    private float[] vector(final String name) {
        return vectors.computeIfAbsent(name, n -> params.get(n).toFloatArray());
    }

    /**
     * cos and sin (rows, headDim) of each row's position, in float32 as the engine computes them.
     */
    float[][] rotary(final long[] positions) {
        final int hd = config.headDim();
        final int half = hd / 2;
        final float[] cos = new float[positions.length * hd];
        final float[] sin = new float[positions.length * hd];
        for (int r = 0; r < positions.length; r++) {
            final float p = positions[r];
            for (int i = 0; i < half; i++) {
                final float angle = p * invFreq[i];
                final float c = (float) Math.cos(angle);
                final float s = (float) Math.sin(angle);
                cos[r * hd + i] = c;
                cos[r * hd + half + i] = c;
                sin[r * hd + i] = s;
                sin[r * hd + half + i] = s;
            }
        }
        return new float[][] {cos, sin};
    }

    /**
     * The attention half of layer {@code l} up to the engine: the queries (rows, heads * headDim),
     * keys and values (rows, kvHeads * headDim), normed and rotated, of the hidden state {@code x}.
     */
    float[][] queryKeyValue(final int l, final float[] x, final int rows, final float[][] rotary) {
        final String b = HfConfig.layerPrefix(l);
        final float[] h =
                rmsNorm(x, rows, config.hiddenSize(), vector(b + "input_layernorm.weight"));
        final float[] q = linear(b + "self_attn.q_proj").apply(h, rows);
        final float[] k = linear(b + "self_attn.k_proj").apply(h, rows);
        final float[] v = linear(b + "self_attn.v_proj").apply(h, rows);
        final int hd = config.headDim();
        if (config.architecture().qkNorm()) {
            rmsNormInPlace(q, q.length / hd, hd, vector(b + "self_attn.q_norm.weight"));
            rmsNormInPlace(k, k.length / hd, hd, vector(b + "self_attn.k_norm.weight"));
        }
        rotate(q, rows, config.heads(), rotary);
        rotate(k, rows, config.kvHeads(), rotary);
        return new float[][] {q, k, v};
    }

    /**
     * The rest of layer {@code l} after the engine's attention: the output projection and residual,
     * the MLP and its residual, added into {@code x} in place.
     */
    void finish(final int l, final float[] x, final int rows, final float[] attended) {
        final String b = HfConfig.layerPrefix(l);
        final int d = config.hiddenSize();
        add(x, linear(b + "self_attn.o_proj").apply(attended, rows));
        final float[] m = rmsNorm(x, rows, d, vector(b + "post_attention_layernorm.weight"));
        final float[] gate = linear(b + "mlp.gate_proj").apply(m, rows);
        final float[] up = linear(b + "mlp.up_proj").apply(m, rows);
        for (int i = 0; i < gate.length; i++) {
            final float g = gate[i];
            gate[i] = g * (float) (1.0 / (1.0 + Math.exp(-g))) * up[i];
        }
        add(x, linear(b + "mlp.down_proj").apply(gate, rows));
    }

    /**
     * Grouped-query attention of one step: the rows' queries (rows, heads * headDim) over the
     * cached keys and values of layer {@code l} with this step's {@code k} and {@code v} (rows,
     * kvHeads * headDim) written at the cache's next position (or over these alone without a
     * cache); {@code bias} (biasRows, keys) is added to each row's scores (one row of it for every
     * row when biasRows is 1), or null. Returns (rows, heads * headDim).
     */
    float[] attention(
            final int l,
            final float[] q,
            final float[] k,
            final float[] v,
            final int rows,
            final KvCache cache,
            final float[] bias,
            final int biasRows,
            final float scale) {
        final int hd = config.headDim();
        final int heads = config.heads();
        final int kvHeads = config.kvHeads();
        final int group = config.groupSize();
        final float[] keys;
        final float[] values;
        final int capacity;
        final int position;
        if (cache == null) {
            keys = k;
            values = v;
            capacity = 1;
            position = 0;
        } else {
            final float[][] host = cache.onHost(l);
            keys = host[0];
            values = host[1];
            capacity = cache.capacity();
            position = cache.length();
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < kvHeads; j++) {
                    final int at = ((r * kvHeads + j) * capacity + position) * hd;
                    System.arraycopy(k, (r * kvHeads + j) * hd, keys, at, hd);
                    System.arraycopy(v, (r * kvHeads + j) * hd, values, at, hd);
                }
            }
        }
        final int count = position + 1;
        final int biasStride = bias == null ? 0 : bias.length / biasRows;
        final float[] out = new float[rows * heads * hd];
        final float[] scores = new float[count];
        for (int r = 0; r < rows; r++) {
            final int biasBase = bias == null ? 0 : (biasRows == 1 ? 0 : r) * biasStride;
            for (int j = 0; j < kvHeads; j++) {
                final int kv = (r * kvHeads + j) * capacity * hd;
                for (int g = 0; g < group; g++) {
                    final int qh = (r * heads + j * group + g) * hd;
                    float max = Float.NEGATIVE_INFINITY;
                    for (int t = 0; t < count; t++) {
                        float score = dot(q, qh, keys, kv + t * hd, hd) * scale;
                        if (bias != null) {
                            score += bias[biasBase + t];
                        }
                        scores[t] = score;
                        max = Math.max(max, score);
                    }
                    float sum = 0f;
                    for (int t = 0; t < count; t++) {
                        scores[t] = (float) Math.exp(scores[t] - max);
                        sum += scores[t];
                    }
                    for (int t = 0; t < count; t++) {
                        axpy(scores[t] / sum, values, kv + t * hd, out, qh, hd);
                    }
                }
            }
        }
        return out;
    }

    /** The final norm of {@code x} as (batch, 1, hidden) in {@code manager}. */
    NDArray finalNorm(final float[] x, final int rows, final NDManager manager) {
        final int d = config.hiddenSize();
        return manager.create(
                rmsNorm(x, rows, d, vector("model.norm.weight")), new Shape(rows, 1, d));
    }

    /** x / sqrt(mean(x^2) + eps) * w per row of {@code width}, into a new array. */
    private float[] rmsNorm(final float[] x, final int rows, final int width, final float[] w) {
        final float[] out = x.clone();
        rmsNormInPlace(out, rows, width, w);
        return out;
    }

    private void rmsNormInPlace(final float[] x, final int rows, final int width, final float[] w) {
        final float eps = (float) config.rmsNormEps();
        for (int r = 0; r < rows; r++) {
            final int base = r * width;
            float sum = 0f;
            for (int i = 0; i < width; i++) {
                sum += x[base + i] * x[base + i];
            }
            final float rms = (float) Math.sqrt(sum / width + eps);
            for (int i = 0; i < width; i++) {
                x[base + i] = x[base + i] / rms * w[i];
            }
        }
    }

    /** x * cos + rotate_half(x) * sin for each head of each row, in place. */
    private void rotate(final float[] x, final int rows, final int heads, final float[][] rotary) {
        final int hd = config.headDim();
        final int half = hd / 2;
        final float[] cos = rotary[0];
        final float[] sin = rotary[1];
        for (int r = 0; r < rows; r++) {
            for (int h = 0; h < heads; h++) {
                final int base = (r * heads + h) * hd;
                for (int i = 0; i < half; i++) {
                    final float x1 = x[base + i];
                    final float x2 = x[base + half + i];
                    x[base + i] = x1 * cos[r * hd + i] + -x2 * sin[r * hd + i];
                    x[base + half + i] = x2 * cos[r * hd + half + i] + x1 * sin[r * hd + half + i];
                }
            }
        }
    }

    /** a[ao..ao+n) . b[bo..bo+n) */
    private static float dot(
            final float[] a, final int ao, final float[] b, final int bo, final int n) {
        FloatVector sums = FloatVector.zero(SPECIES);
        int i = 0;
        for (; i + SPECIES.length() <= n; i += SPECIES.length()) {
            sums =
                    FloatVector.fromArray(SPECIES, a, ao + i)
                            .fma(FloatVector.fromArray(SPECIES, b, bo + i), sums);
        }
        float sum = sums.reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            sum += a[ao + i] * b[bo + i];
        }
        return sum;
    }

    /** y[yo..yo+n) += s * x[xo..xo+n) */
    private static void axpy(
            final float s,
            final float[] x,
            final int xo,
            final float[] y,
            final int yo,
            final int n) {
        final FloatVector scale = FloatVector.broadcast(SPECIES, s);
        int i = 0;
        for (; i + SPECIES.length() <= n; i += SPECIES.length()) {
            FloatVector.fromArray(SPECIES, x, xo + i)
                    .fma(scale, FloatVector.fromArray(SPECIES, y, yo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += s * x[xo + i];
        }
    }

    private static void add(final float[] x, final float[] delta) {
        for (int i = 0; i < x.length; i++) {
            x[i] += delta[i];
        }
    }
}
