package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A decoder-only (GPT-style) transformer written from NDArray ops: token and learned position
 * embeddings, pre-LN blocks of causal multi-head attention and a GELU MLP, a final layer norm and a
 * tied or untied LM head. Parameters live in the model's own manager; every forward result belongs
 * to the manager of the ids passed in, so one manager per step frees a step's arrays.
 */
public final class TransformerLM implements CausalLM {

    private static final float LN_EPS = 1e-5f;

    private final ModelConfig config;
    private final NDManager manager;
    private final Map<String, NDArray> params;
    private final Shape normShape;
    private final float attentionScale;
    private final StepProfile profile;

    private TransformerLM(
            final ModelConfig config,
            final NDManager manager,
            final Map<String, NDArray> params,
            final StepProfile profile) {
        this.config = config;
        this.manager = manager;
        this.params = Collections.unmodifiableMap(params);
        this.normShape = new Shape(config.dModel());
        this.attentionScale = (float) (1.0 / Math.sqrt(config.headDim()));
        this.profile = profile;
    }

    /**
     * This model timing the parts of each forward pass into {@code profile}, for benchmarks: a view
     * that shares the parameters and whose {@link #close} frees nothing.
     */
    public TransformerLM profiled(final StepProfile profile) {
        if (this.profile != null) {
            throw new IllegalStateException("this model is already profiled");
        }
        return new TransformerLM(config, null, params, profile);
    }

    /**
     * A freshly initialised model (normal(0, 0.02) weights, residual projections scaled by 1/sqrt(2
     * layers), unit layer norms) whose values depend only on {@code seed}.
     */
    public static TransformerLM initialise(
            final ModelConfig config, final long seed, final NDManager parent) {
        final SplittableRandom random = new SplittableRandom(seed);
        final Map<String, Tensor> init = new LinkedHashMap<>();
        final int d = config.dModel();
        final float residualStd = (float) (0.02 / Math.sqrt(2.0 * config.layers()));
        init.put("tok_emb.weight", normal(random, 0.02f, config.vocabSize(), d));
        init.put("pos_emb.weight", normal(random, 0.01f, config.maxContext(), d));
        for (int l = 0; l < config.layers(); l++) {
            final String b = "blocks." + l + ".";
            init.put(b + "ln1.weight", constant(1f, d));
            init.put(b + "ln1.bias", constant(0f, d));
            init.put(b + "attn.qkv.weight", normal(random, 0.02f, 3L * d, d));
            init.put(b + "attn.qkv.bias", constant(0f, 3L * d));
            init.put(b + "attn.proj.weight", normal(random, residualStd, d, d));
            init.put(b + "attn.proj.bias", constant(0f, d));
            init.put(b + "ln2.weight", constant(1f, d));
            init.put(b + "ln2.bias", constant(0f, d));
            init.put(b + "mlp.fc.weight", normal(random, 0.02f, config.mlp(), d));
            init.put(b + "mlp.fc.bias", constant(0f, config.mlp()));
            init.put(b + "mlp.proj.weight", normal(random, residualStd, d, config.mlp()));
            init.put(b + "mlp.proj.bias", constant(0f, d));
        }
        init.put("ln_f.weight", constant(1f, d));
        init.put("ln_f.bias", constant(0f, d));
        if (!config.tiedHead()) {
            init.put("lm_head.weight", normal(random, 0.02f, config.vocabSize(), d));
        }
        return fromTensors(config, init, parent);
    }

    /** A model holding the given values; names and shapes must be those of {@code config}. */
    public static TransformerLM fromTensors(
            final ModelConfig config, final Map<String, Tensor> tensors, final NDManager parent) {
        final Map<String, Tensor> expected = shapesOf(config);
        if (!expected.keySet().equals(tensors.keySet())) {
            throw new IllegalArgumentException(
                    "weights do not match the model config "
                            + config
                            + ": expected tensors "
                            + expected.keySet()
                            + " but got "
                            + tensors.keySet());
        }
        final NDManager manager = parent.newSubManager();
        final Map<String, NDArray> params = new LinkedHashMap<>();
        for (final Map.Entry<String, Tensor> e : tensors.entrySet()) {
            final long[] want = expected.get(e.getKey()).shape();
            if (!java.util.Arrays.equals(want, e.getValue().shape())) {
                manager.close();
                throw new IllegalArgumentException(
                        "tensor "
                                + e.getKey()
                                + " has shape "
                                + java.util.Arrays.toString(e.getValue().shape())
                                + " but the config needs "
                                + java.util.Arrays.toString(want));
            }
            final NDArray array =
                    manager.create(e.getValue().data(), new Shape(e.getValue().shape()));
            array.setName(e.getKey());
            params.put(e.getKey(), array);
        }
        return new TransformerLM(config, manager, params, null);
    }

    /** The configuration this model was built with. */
    public ModelConfig config() {
        return config;
    }

    @Override
    public int vocabSize() {
        return config.vocabSize();
    }

    @Override
    public int maxContext() {
        return config.maxContext();
    }

    @Override
    public DecoderShape shape() {
        return new DecoderShape(
                config.parameterCount(),
                config.layers(),
                config.dModel(),
                config.heads(),
                config.heads(),
                config.headDim(),
                config.mlp(),
                config.vocabSize());
    }

    @Override
    public KvCache newCache(final NDManager cacheManager, final int batch, final int capacity) {
        return new KvCache(cacheManager, config, batch, capacity);
    }

    /** Parameters by name, in a fixed order (the checkpoint order). */
    @Override
    public Map<String, NDArray> parameters() {
        return params;
    }

    /** Turns gradient recording of every parameter on (training) or off (frozen models). */
    @Override
    public void setTrainable(final boolean trainable) {
        for (final NDArray p : params.values()) {
            p.setRequiresGradient(trainable);
        }
    }

    /** Copies every parameter out of the engine. */
    public Map<String, Tensor> toTensors() {
        return Tensor.copyOf(params);
    }

    /** An independent copy (for example the frozen reference model of GRPO). */
    public TransformerLM copy(final NDManager parent) {
        return fromTensors(config, toTensors(), parent);
    }

    @Override
    public NDArray head(final NDArray hidden) {
        lap(StepProfile.Part.OTHER);
        final NDArray x = norm(hidden, "ln_f");
        final NDArray weight = config.tiedHead() ? p("tok_emb.weight") : p("lm_head.weight");
        final NDArray logits = Linear.linear(x, weight).singletonOrThrow();
        lap(StepProfile.Part.LM_HEAD);
        return logits;
    }

    @Override
    public NDArray hidden(
            final NDArray ids, final NDArray positions, final NDArray bias, final KvCache cache) {
        final Shape shape = ids.getShape();
        final long batch = shape.get(0);
        final long steps = shape.get(1);
        NDArray x =
                ids.getNDArrayInternal()
                        .embedding(ids, p("tok_emb.weight"), SparseFormat.DENSE)
                        .singletonOrThrow();
        x =
                x.add(
                        positions
                                .getNDArrayInternal()
                                .embedding(positions, p("pos_emb.weight"), SparseFormat.DENSE)
                                .singletonOrThrow());
        for (int l = 0; l < config.layers(); l++) {
            x = block(l, x, bias, cache, batch, steps);
        }
        if (cache != null) {
            cache.advance((int) steps);
        }
        return x;
    }

    private NDArray block(
            final int layer,
            final NDArray input,
            final NDArray bias,
            final KvCache cache,
            final long batch,
            final long steps) {
        final String b = "blocks." + layer + ".";
        final int heads = config.heads();
        final int hd = config.headDim();
        NDArray h = norm(input, b + "ln1");
        lap(StepProfile.Part.OTHER);
        final NDArray qkv =
                Linear.linear(h, p(b + "attn.qkv.weight"), p(b + "attn.qkv.bias"))
                        .singletonOrThrow()
                        .reshape(batch, steps, 3, heads, hd)
                        .transpose(2, 0, 3, 1, 4);
        lap(StepProfile.Part.PROJECTIONS);
        final NDArray q = qkv.get(0);
        NDArray k = qkv.get(1);
        NDArray v = qkv.get(2);
        if (cache != null) {
            final NDArray[] kv = cache.append(layer, k, v);
            k = kv[0];
            v = kv[1];
        }
        final NDArray raw = q.matMul(k.transpose(0, 1, 3, 2));
        NDArray scores = raw.mul(Scalars.of(raw, attentionScale));
        if (bias != null) {
            scores = scores.add(bias);
        }
        final NDArray attended =
                scores.softmax(-1)
                        .matMul(v)
                        .transpose(0, 2, 1, 3)
                        .reshape(batch, steps, config.dModel());
        lap(StepProfile.Part.ATTENTION);
        final NDArray projected =
                Linear.linear(attended, p(b + "attn.proj.weight"), p(b + "attn.proj.bias"))
                        .singletonOrThrow();
        lap(StepProfile.Part.PROJECTIONS);
        final NDArray x = input.add(projected);
        h = norm(x, b + "ln2");
        lap(StepProfile.Part.OTHER);
        h = Linear.linear(h, p(b + "mlp.fc.weight"), p(b + "mlp.fc.bias")).singletonOrThrow();
        lap(StepProfile.Part.PROJECTIONS);
        h = Activation.gelu(h);
        lap(StepProfile.Part.OTHER);
        h = Linear.linear(h, p(b + "mlp.proj.weight"), p(b + "mlp.proj.bias")).singletonOrThrow();
        lap(StepProfile.Part.PROJECTIONS);
        return x.add(h);
    }

    private void lap(final StepProfile.Part part) {
        if (profile != null) {
            profile.lap(part);
        }
    }

    private NDArray norm(final NDArray x, final String name) {
        return LayerNorm.layerNorm(x, normShape, p(name + ".weight"), p(name + ".bias"), LN_EPS)
                .singletonOrThrow();
    }

    private NDArray p(final String name) {
        return params.get(name);
    }

    /** Names and shapes of the parameters a config needs (values empty). */
    static Map<String, Tensor> shapesOf(final ModelConfig config) {
        final Map<String, Tensor> shapes = new LinkedHashMap<>();
        final int d = config.dModel();
        shapes.put("tok_emb.weight", empty(config.vocabSize(), d));
        shapes.put("pos_emb.weight", empty(config.maxContext(), d));
        for (int l = 0; l < config.layers(); l++) {
            final String b = "blocks." + l + ".";
            shapes.put(b + "ln1.weight", empty(d));
            shapes.put(b + "ln1.bias", empty(d));
            shapes.put(b + "attn.qkv.weight", empty(3L * d, d));
            shapes.put(b + "attn.qkv.bias", empty(3L * d));
            shapes.put(b + "attn.proj.weight", empty(d, d));
            shapes.put(b + "attn.proj.bias", empty(d));
            shapes.put(b + "ln2.weight", empty(d));
            shapes.put(b + "ln2.bias", empty(d));
            shapes.put(b + "mlp.fc.weight", empty(config.mlp(), d));
            shapes.put(b + "mlp.fc.bias", empty(config.mlp()));
            shapes.put(b + "mlp.proj.weight", empty(d, config.mlp()));
            shapes.put(b + "mlp.proj.bias", empty(d));
        }
        shapes.put("ln_f.weight", empty(d));
        shapes.put("ln_f.bias", empty(d));
        if (!config.tiedHead()) {
            shapes.put("lm_head.weight", empty(config.vocabSize(), d));
        }
        return shapes;
    }

    private static Tensor empty(final long... shape) {
        long n = 1;
        for (final long s : shape) {
            n *= s;
        }
        return new Tensor(shape, new float[(int) n]);
    }

    private static Tensor constant(final float value, final long... shape) {
        final Tensor t = empty(shape);
        java.util.Arrays.fill(t.data(), value);
        return t;
    }

    private static Tensor normal(
            final SplittableRandom random, final float std, final long... shape) {
        final Tensor t = empty(shape);
        final float[] data = t.data();
        for (int i = 0; i < data.length; i++) {
            data[i] = (float) (gaussian(random) * std);
        }
        return t;
    }

    private static double gaussian(final SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
        final double u1 = 1.0 - random.nextDouble();
        final double u2 = random.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }

    /** Frees the parameters (a profiled view frees nothing). */
    @Override
    public void close() {
        if (profile == null) {
            manager.close();
        }
    }
}
