package dev.rwml.worldmodel.hf;

import java.util.Map;

/**
 * A plain float64 loop implementation of the decoder, written from the Hugging Face modeling code
 * (Llama, Qwen2, Qwen3: RMSNorm computed as x / sqrt(mean(x^2) + eps) times the weight; rotary
 * embedding pairs element i with i + headDim/2; query head h reads key/value head h / group; Qwen3
 * normalises each query and key head before the rotary embedding), independent of the engine, to
 * check {@link HfDecoder} where no golden logits exist.
 */
final class ReferenceDecoder {

    private final HfConfig c;
    private final Map<String, float[]> w;
    private final boolean qkNorm;

    ReferenceDecoder(final HfConfig config, final Map<String, float[]> weights) {
        this(config, weights, config.architecture().qkNorm());
    }

    /** With {@code qkNorm} forced, to show what skipping Qwen3's q_norm/k_norm would change. */
    ReferenceDecoder(
            final HfConfig config, final Map<String, float[]> weights, final boolean qkNorm) {
        this.c = config;
        this.w = weights;
        this.qkNorm = qkNorm;
    }

    /** logits[t][v] after ids[0..t], positions 0..T-1. */
    double[][] logits(final int[] ids) {
        final int steps = ids.length;
        final int d = c.hiddenSize();
        final int hd = c.headDim();
        final double[][] x = new double[steps][];
        final float[] embed = w.get("model.embed_tokens.weight");
        for (int t = 0; t < steps; t++) {
            x[t] = new double[d];
            for (int i = 0; i < d; i++) {
                x[t][i] = embed[ids[t] * d + i];
            }
        }
        for (int l = 0; l < c.layers(); l++) {
            final String p = "model.layers." + l + ".";
            final double[][] q = new double[steps][];
            final double[][] k = new double[steps][];
            final double[][] v = new double[steps][];
            for (int t = 0; t < steps; t++) {
                final double[] h = rms(x[t], w.get(p + "input_layernorm.weight"));
                q[t] = project(h, p + "self_attn.q_proj");
                k[t] = project(h, p + "self_attn.k_proj");
                v[t] = project(h, p + "self_attn.v_proj");
                if (qkNorm) {
                    perHead(q[t], c.heads(), w.get(p + "self_attn.q_norm.weight"));
                    perHead(k[t], c.kvHeads(), w.get(p + "self_attn.k_norm.weight"));
                }
                rope(q[t], c.heads(), t);
                rope(k[t], c.kvHeads(), t);
            }
            for (int t = 0; t < steps; t++) {
                final double[] attended = new double[c.heads() * hd];
                for (int head = 0; head < c.heads(); head++) {
                    final int kvHead = head / (c.heads() / c.kvHeads());
                    final double[] scores = new double[t + 1];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int s = 0; s <= t; s++) {
                        double dot = 0;
                        for (int i = 0; i < hd; i++) {
                            dot += q[t][head * hd + i] * k[s][kvHead * hd + i];
                        }
                        scores[s] = dot / Math.sqrt(hd);
                        max = Math.max(max, scores[s]);
                    }
                    double sum = 0;
                    for (int s = 0; s <= t; s++) {
                        scores[s] = Math.exp(scores[s] - max);
                        sum += scores[s];
                    }
                    for (int s = 0; s <= t; s++) {
                        for (int i = 0; i < hd; i++) {
                            attended[head * hd + i] += scores[s] / sum * v[s][kvHead * hd + i];
                        }
                    }
                }
                add(x[t], project(attended, p + "self_attn.o_proj"));
            }
            for (int t = 0; t < steps; t++) {
                final double[] h = rms(x[t], w.get(p + "post_attention_layernorm.weight"));
                final double[] gate = project(h, p + "mlp.gate_proj");
                final double[] up = project(h, p + "mlp.up_proj");
                for (int i = 0; i < gate.length; i++) {
                    gate[i] = gate[i] / (1 + Math.exp(-gate[i])) * up[i];
                }
                add(x[t], project(gate, p + "mlp.down_proj"));
            }
        }
        final float[] head = c.tiedEmbeddings() ? embed : w.get("lm_head.weight");
        final double[][] out = new double[steps][];
        for (int t = 0; t < steps; t++) {
            out[t] = matVec(head, c.vocabSize(), rms(x[t], w.get("model.norm.weight")), null);
        }
        return out;
    }

    private double[] project(final double[] in, final String name) {
        final float[] weight = w.get(name + ".weight");
        return matVec(weight, weight.length / in.length, in, w.get(name + ".bias"));
    }

    private static double[] matVec(
            final float[] weight, final int rows, final double[] in, final float[] bias) {
        final double[] out = new double[rows];
        for (int r = 0; r < rows; r++) {
            double acc = bias == null ? 0 : bias[r];
            for (int i = 0; i < in.length; i++) {
                acc += weight[r * in.length + i] * in[i];
            }
            out[r] = acc;
        }
        return out;
    }

    private double[] rms(final double[] in, final float[] weight) {
        final double[] out = new double[in.length];
        double sq = 0;
        for (final double v : in) {
            sq += v * v;
        }
        final double scale = 1 / Math.sqrt(sq / in.length + c.rmsNormEps());
        for (int i = 0; i < in.length; i++) {
            out[i] = in[i] * scale * weight[i];
        }
        return out;
    }

    private void perHead(final double[] vec, final int heads, final float[] weight) {
        final int hd = c.headDim();
        for (int h = 0; h < heads; h++) {
            final double[] one = new double[hd];
            System.arraycopy(vec, h * hd, one, 0, hd);
            System.arraycopy(rms(one, weight), 0, vec, h * hd, hd);
        }
    }

    private void rope(final double[] vec, final int heads, final int position) {
        final int hd = c.headDim();
        final int half = hd / 2;
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < half; i++) {
                final double angle = position * Math.pow(c.ropeTheta(), -2.0 * i / hd);
                final double a = vec[h * hd + i];
                final double b = vec[h * hd + i + half];
                vec[h * hd + i] = a * Math.cos(angle) - b * Math.sin(angle);
                vec[h * hd + i + half] = b * Math.cos(angle) + a * Math.sin(angle);
            }
        }
    }

    private static void add(final double[] x, final double[] delta) {
        for (int i = 0; i < x.length; i++) {
            x[i] += delta[i];
        }
    }
}
