package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import ai.djl.nn.core.Linear;
import ai.djl.pytorch.jni.JniUtils;
import dev.rwml.worldmodel.checkpoint.MappedSafetensors;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.DecoderShape;
import dev.rwml.worldmodel.model.KvCache;
import dev.rwml.worldmodel.model.PackedLinear;
import dev.rwml.worldmodel.model.Scalars;
import dev.rwml.worldmodel.model.StepProfile;
import dev.rwml.worldmodel.model.StepProfile.Part;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.model.VectorKernels;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One config-driven decoder for Qwen2, Qwen3 and Llama checkpoints, written from NDArray ops in
 * float32 so autograd can train it: RMSNorm, rotary embeddings in the rotate-half convention,
 * grouped-query attention, a SwiGLU MLP and a tied or untied head, with the parameters under their
 * exact Hugging Face names. Every forward result belongs to the manager of the ids passed in.
 */
public final class HfDecoder implements CausalLM {

    private static final Logger LOG = LoggerFactory.getLogger(HfDecoder.class);

    /** Elements converted per native block while loading (64 MB of float32). */
    private static final int LOAD_BLOCK = 1 << 24;

    /** Most rows of a decode step that {@link PackedLinear} multiplies (more go to the engine). */
    private static final int PACKED_ROWS = 64;

    private final HfConfig config;
    private final NDManager manager;
    private final Map<String, NDArray> params;
    private final NDArray invFreq;
    private final NDArray rotateHalf;
    private final float attentionScale;
    private final LoraAdapter adapter;
    private final StepProfile profile;

    /**
     * Decode steps in Java over the base's weights packed on first use, shared by views; null when
     * {@link VectorKernels} is off, the engine runs more than one thread or the heap cannot hold a
     * copy of the weights.
     */
    private final PackedDecodeStep packedStep;

    private boolean training;

    private HfDecoder(
            final HfConfig config,
            final NDManager manager,
            final Map<String, NDArray> params,
            final NDArray[] rope,
            final LoraAdapter adapter,
            final StepProfile profile,
            final PackedDecodeStep packedStep) {
        this.config = config;
        this.manager = manager;
        this.params = params;
        this.invFreq = rope[0];
        this.rotateHalf = rope[1];
        this.attentionScale = (float) (1.0 / Math.sqrt(config.headDim()));
        this.adapter = adapter;
        this.profile = profile;
        this.packedStep = packedStep;
    }

    private static HfDecoder owning(
            final HfConfig config, final NDManager manager, final Map<String, NDArray> params) {
        final int half = config.headDim() / 2;
        final float[] freq = new float[half];
        for (int i = 0; i < half; i++) {
            freq[i] = (float) (1.0 / Math.pow(config.ropeTheta(), 2.0 * i / config.headDim()));
        }
        // rotate_half(x) = x R for the signed permutation R: (-x2, x1) of the halves x1, x2
        final float[] rotation = new float[config.headDim() * config.headDim()];
        for (int i = 0; i < half; i++) {
            rotation[(i + half) * config.headDim() + i] = -1f;
            rotation[i * config.headDim() + i + half] = 1f;
        }
        final Map<String, NDArray> frozen = Collections.unmodifiableMap(params);
        return new HfDecoder(
                config,
                manager,
                frozen,
                new NDArray[] {
                    manager.create(freq),
                    manager.create(rotation, new Shape(config.headDim(), config.headDim()))
                },
                null,
                null,
                decodesInJava(config) ? new PackedDecodeStep(config, frozen, freq) : null);
    }

    /**
     * This decoder with {@code adapter} added to its projections: a view that shares (and never
     * frees) these weights, whose parameters are the adapter's alone, so training it leaves the
     * base frozen; closing it frees the adapter. This decoder, unchanged, is the base with the
     * adapter off. It must outlive the view.
     */
    public HfDecoder withAdapter(final LoraAdapter adapter) {
        if (this.adapter != null || profile != null) {
            throw new IllegalStateException("this decoder is already a view");
        }
        return new HfDecoder(
                config,
                null,
                params,
                new NDArray[] {invFreq, rotateHalf},
                adapter,
                null,
                packedStep);
    }

    /**
     * This decoder (with its adapter, if a view) timing the parts of each forward pass into {@code
     * profile}, for benchmarks: a view that shares everything and whose {@link #close} frees
     * nothing. Without a profile a decoder only tests a null field per part.
     */
    public HfDecoder profiled(final StepProfile profile) {
        if (this.profile != null) {
            throw new IllegalStateException("this decoder is already profiled");
        }
        return new HfDecoder(
                config,
                null,
                params,
                new NDArray[] {invFreq, rotateHalf},
                adapter,
                profile,
                packedStep);
    }

    @Override
    public long adapterFloatsPerToken() {
        return adapter == null ? 0 : adapter.savedFloatsPerToken();
    }

    /**
     * Whether decode steps are computed in Java with the Vector API ({@link VectorKernels}, {@link
     * PackedDecodeStep}) rather than by the engine: never while training.
     */
    public boolean packsDecodeSteps() {
        return packedStep != null && !training;
    }

    /** The adapter of a view, if this is one. */
    public Optional<LoraAdapter> adapter() {
        return Optional.ofNullable(adapter);
    }

    /** Loads a checkpoint directory: {@code config.json} and its safetensors weights. */
    public static HfDecoder load(final Path checkpointDir, final NDManager parent) {
        final HfConfig config = HfConfig.load(checkpointDir);
        try (MappedSafetensors weights = MappedSafetensors.open(checkpointDir)) {
            return fromWeights(config, weights, parent);
        }
    }

    /**
     * A decoder holding the weights {@code config} names, converted to float32 one block at a time,
     * so neither the heap nor direct memory ever holds a whole tensor of the file.
     */
    public static HfDecoder fromWeights(
            final HfConfig config, final MappedSafetensors weights, final NDManager parent) {
        final long started = System.nanoTime();
        final Map<String, long[]> shapes = config.tensorShapes();
        weights.verify(shapes, ignorable(config, weights));
        final NDManager manager = parent.newSubManager();
        final Map<String, NDArray> params = new LinkedHashMap<>();
        long count = 0;
        try {
            for (final Map.Entry<String, long[]> e : shapes.entrySet()) {
                final NDArray array = loadTensor(manager, weights, e.getKey(), e.getValue());
                array.setName(e.getKey());
                params.put(e.getKey(), array);
                count += array.size();
            }
        } catch (final RuntimeException e) {
            manager.close();
            throw e;
        }
        LOG.info(
                "loaded {} {} tensors ({} parameters) in {} ms",
                params.size(),
                config.architecture().className(),
                count,
                (System.nanoTime() - started) / 1_000_000);
        return owning(config, manager, params);
    }

    /**
     * Checks a checkpoint directory's weights against its config without loading them: every tensor
     * present, none unexpected, every shape right (the error names each that is not).
     */
    public static HfConfig verify(final Path checkpointDir) {
        final HfConfig config = HfConfig.load(checkpointDir);
        try (MappedSafetensors weights = MappedSafetensors.open(checkpointDir)) {
            weights.verify(config.tensorShapes(), ignorable(config, weights));
        }
        return config;
    }

    /**
     * Copies every weight out of the engine, in float32, under its Hugging Face name; an adapter
     * view gives its base's weights with the adapter merged ({@code W + scaling * B A}).
     */
    public Map<String, Tensor> toTensors() {
        final Map<String, Tensor> out = new LinkedHashMap<>();
        for (final Map.Entry<String, NDArray> e : params.entrySet()) {
            final String name = e.getKey();
            NDArray value = e.getValue();
            NDArray merged = null;
            if (adapter != null && name.endsWith(".weight")) {
                merged = adapter.merged(name.substring(0, name.length() - 7), value);
            }
            if (merged != null) {
                value = merged;
            }
            out.put(name, Tensor.copyOf(value));
            if (merged != null) {
                merged.close();
            }
        }
        return out;
    }

    /** The configuration this decoder was built from. */
    public HfConfig config() {
        return config;
    }

    @Override
    public int vocabSize() {
        return config.vocabSize();
    }

    @Override
    public int maxContext() {
        return config.maxPositions();
    }

    @Override
    public DecoderShape shape() {
        return new DecoderShape(
                config.parameterCount(),
                config.layers(),
                config.hiddenSize(),
                config.heads(),
                config.kvHeads(),
                config.headDim(),
                config.intermediateSize(),
                config.vocabSize());
    }

    /**
     * Parameters by exact Hugging Face name, in checkpoint order; for an adapter view, the
     * adapter's by PEFT name (the base is frozen).
     */
    @Override
    public Map<String, NDArray> parameters() {
        return adapter == null ? params : adapter.parameters();
    }

    /**
     * Turns gradient recording of the parameters on (training) or off (frozen models); a training
     * adapter view also applies its dropout.
     */
    @Override
    public void setTrainable(final boolean trainable) {
        training = trainable;
        if (adapter == null && packedStep != null) {
            // the weights may change from here on: copy them again when next decoding
            packedStep.forget();
        }
        for (final NDArray p : parameters().values()) {
            p.setRequiresGradient(trainable);
        }
    }

    /** A KV cache for this decoder in {@code manager}. */
    @Override
    public KvCache newCache(final NDManager cacheManager, final int batch, final int capacity) {
        return new KvCache(
                cacheManager, config.layers(), config.kvHeads(), config.headDim(), batch, capacity);
    }

    @Override
    public NDArray hidden(
            final NDArray ids, final NDArray positions, final NDArray bias, final KvCache cache) {
        final long batch = ids.getShape().get(0);
        final long steps = ids.getShape().get(1);
        NDArray x =
                ids.getNDArrayInternal()
                        .embedding(ids, p("model.embed_tokens.weight"), SparseFormat.DENSE)
                        .singletonOrThrow();
        if (packedStep != null
                && adapter == null
                && !training
                && steps == 1
                && batch <= PACKED_ROWS
                && !x.getDevice().isGpu()
                && (cache == null || cache.length() > 0)
                && (bias == null || keyBias(bias, batch))) {
            // a step after a prefill: the cache moves to Java, where the engine never reads it
            return packedHidden(x, positions, bias, cache);
        }
        final Pass pass =
                new Pass(
                        batch,
                        steps,
                        rotary(positions),
                        bias == null ? null : grouped(bias),
                        Scalars.of(x, attentionScale));
        for (int l = 0; l < config.layers(); l++) {
            x = layer(l, x, pass, cache);
        }
        if (cache != null) {
            cache.advance((int) steps);
        }
        lap(Part.OTHER);
        final NDArray normed = rmsNorm(x, p("model.norm.weight"));
        lap(Part.LM_HEAD);
        return normed;
    }

    /** Whether {@code bias} is a bias per key only, (batch or 1, 1, 1, keys), as decoding uses. */
    private static boolean keyBias(final NDArray bias, final long batch) {
        final Shape shape = bias.getShape();
        return shape.dimension() == 4
                && (shape.get(0) == 1 || shape.get(0) == batch)
                && shape.get(1) == 1
                && shape.get(2) == 1;
    }

    /**
     * {@link #hidden} of a decode step computed in Java ({@link PackedDecodeStep}), attention over
     * the KV cache included; the engine embeds the ids and receives the final hidden state.
     */
    private NDArray packedHidden(
            final NDArray embedded,
            final NDArray positions,
            final NDArray bias,
            final KvCache cache) {
        final int rows = Math.toIntExact(embedded.getShape().get(0));
        final float[] x = embedded.toFloatArray();
        final float[][] rotary = packedStep.rotary(positions.toLongArray());
        final float[] keyBias = bias == null ? null : bias.toFloatArray();
        final int biasRows = bias == null ? 0 : Math.toIntExact(bias.getShape().get(0));
        lap(Part.OTHER);
        for (int l = 0; l < config.layers(); l++) {
            final float[][] qkv = packedStep.queryKeyValue(l, x, rows, rotary);
            lap(Part.PROJECTIONS);
            final float[] attended =
                    packedStep.attention(
                            l,
                            qkv[0],
                            qkv[1],
                            qkv[2],
                            rows,
                            cache,
                            keyBias,
                            biasRows,
                            attentionScale);
            lap(Part.ATTENTION);
            packedStep.finish(l, x, rows, attended);
            lap(Part.PROJECTIONS);
        }
        if (cache != null) {
            cache.advance(1);
        }
        final NDArray normed = packedStep.finalNorm(x, rows, embedded.getManager());
        lap(Part.LM_HEAD);
        return normed;
    }

    @Override
    public NDArray head(final NDArray hidden) {
        final String name =
                config.tiedEmbeddings() ? "model.embed_tokens.weight" : "lm_head.weight";
        final PackedLinear kernel = decodeKernel(hidden, name);
        final NDArray logits =
                kernel != null
                        ? kernel.apply(hidden)
                        : Linear.linear(hidden, p(name)).singletonOrThrow();
        lap(Part.LM_HEAD);
        return logits;
    }

    /**
     * What every layer of one forward pass shares: its sizes, cos and sin of the positions, the
     * attention bias laid out as the grouped scores, and the attention scale.
     */
    private record Pass(long batch, long steps, NDArray[] rotary, NDArray bias, NDArray scale) {}

    /** cos and sin (batch, 1, steps, headDim) of each position, computed in float32 as HF does. */
    private NDArray[] rotary(final NDArray positions) {
        final NDArray angles =
                positions.toType(DataType.FLOAT32, false).expandDims(-1).mul(invFreq);
        final NDArray emb = NDArrays.concat(new NDList(angles, angles), -1).expandDims(1);
        return new NDArray[] {emb.cos(), emb.sin()};
    }

    /**
     * A bias broadcastable to (batch, heads, steps, keys) as one broadcastable to the grouped
     * scores (batch, kvHeads, group, steps, keys).
     */
    private NDArray grouped(final NDArray bias) {
        final Shape shape = bias.getShape();
        final int dims = shape.dimension();
        final long heads = dims >= 3 ? shape.get(dims - 3) : 1;
        if (heads == 1) {
            return dims == 4 ? bias.expandDims(2) : bias;
        }
        final long[] split = new long[dims + 1];
        for (int i = 0; i < dims - 3; i++) {
            split[i] = shape.get(i);
        }
        split[dims - 3] = config.kvHeads();
        split[dims - 2] = config.groupSize();
        split[dims - 1] = shape.get(dims - 2);
        split[dims] = shape.get(dims - 1);
        return bias.reshape(split);
    }

    private NDArray layer(
            final int layer, final NDArray input, final Pass pass, final KvCache cache) {
        final String b = HfConfig.layerPrefix(layer);
        final long batch = pass.batch();
        final long steps = pass.steps();
        final int hd = config.headDim();
        final NDArray h = rmsNorm(input, p(b + "input_layernorm.weight"));
        lap(Part.OTHER);
        NDArray q = linear(h, b + "self_attn.q_proj").reshape(batch, steps, config.heads(), hd);
        NDArray k = linear(h, b + "self_attn.k_proj").reshape(batch, steps, config.kvHeads(), hd);
        NDArray v =
                linear(h, b + "self_attn.v_proj")
                        .reshape(batch, steps, config.kvHeads(), hd)
                        .transpose(0, 2, 1, 3);
        if (config.architecture().qkNorm()) {
            q = rmsNorm(q, p(b + "self_attn.q_norm.weight"));
            k = rmsNorm(k, p(b + "self_attn.k_norm.weight"));
        }
        q = rotate(q.transpose(0, 2, 1, 3), pass.rotary());
        k = rotate(k.transpose(0, 2, 1, 3), pass.rotary());
        lap(Part.OTHER);
        if (cache != null) {
            final NDArray[] kv = cache.append(layer, k, v);
            k = kv[0];
            v = kv[1];
        }
        final NDArray attended = attention(q, k, v, pass);
        lap(Part.ATTENTION);
        final NDArray x = input.add(linear(attended, b + "self_attn.o_proj"));
        final NDArray m = rmsNorm(x, p(b + "post_attention_layernorm.weight"));
        lap(Part.OTHER);
        final NDArray gate = linear(m, b + "mlp.gate_proj");
        final NDArray up = linear(m, b + "mlp.up_proj");
        final NDArray act = gate.mul(Activation.sigmoid(gate)).mul(up);
        lap(Part.OTHER);
        return x.add(linear(act, b + "mlp.down_proj"));
    }

    /**
     * Scaled dot-product attention of queries (batch, heads, steps, headDim) over keys and values
     * (batch, kvHeads, keys, headDim), as (batch, steps, heads * headDim). Query head h reads
     * key/value head h / group, as Hugging Face's repeat_kv lays them out; here a group's queries
     * become rows of one matmul per key/value head, so keys and values are never repeated.
     */
    private NDArray attention(final NDArray q, final NDArray k, final NDArray v, final Pass pass) {
        final long batch = pass.batch();
        final long steps = pass.steps();
        final long kvHeads = config.kvHeads();
        final long rows = config.groupSize() * steps;
        final NDArray raw =
                q.reshape(batch, kvHeads, rows, config.headDim()).matMul(k.transpose(0, 1, 3, 2));
        NDArray scores = raw.mul(pass.scale());
        if (pass.bias() != null) {
            scores =
                    scores.reshape(batch, kvHeads, config.groupSize(), steps, -1)
                            .add(pass.bias())
                            .reshape(batch, kvHeads, rows, -1);
        }
        return scores.softmax(-1)
                .matMul(v)
                .reshape(batch, config.heads(), steps, config.headDim())
                .transpose(0, 2, 1, 3)
                .reshape(batch, steps, (long) config.heads() * config.headDim());
    }

    /** x * cos + rotate_half(x) * sin, rotate_half(x) = (-x2, x1) of the halves x1, x2. */
    private NDArray rotate(final NDArray x, final NDArray[] rotary) {
        // a signed permutation matrix: one matmul, exact, instead of two slices, a negation and
        // a concatenation
        return x.mul(rotary[0]).add(x.matMul(rotateHalf).mul(rotary[1]));
    }

    private NDArray rmsNorm(final NDArray x, final NDArray weight) {
        final NDArray rms =
                x.square().mean(new int[] {-1}, true).add((float) config.rmsNormEps()).sqrt();
        return x.div(rms).mul(weight);
    }

    private NDArray linear(final NDArray x, final String name) {
        final NDArray bias = params.get(name + ".bias");
        final PackedLinear kernel = decodeKernel(x, name + ".weight");
        final NDArray out =
                kernel != null
                        ? kernel.apply(x)
                        : (bias == null
                                        ? Linear.linear(x, p(name + ".weight"))
                                        : Linear.linear(x, p(name + ".weight"), bias))
                                .singletonOrThrow();
        final NDArray delta = adapter == null ? null : adapter.delta(name, x, training);
        final NDArray result = delta == null ? out : out.add(delta);
        lap(Part.PROJECTIONS);
        return result;
    }

    /**
     * The packed weight {@code weightName} for {@code x} when {@code x} is a decode step's (one
     * position of at most {@link #PACKED_ROWS} rows, on the CPU, no gradients recorded), else null:
     * the engine multiplies.
     */
    private PackedLinear decodeKernel(final NDArray x, final String weightName) {
        if (packedStep == null || training || x.getDevice().isGpu()) {
            return null;
        }
        final Shape shape = x.getShape();
        final long in = shape.get(shape.dimension() - 1);
        final long steps = shape.dimension() >= 3 ? shape.get(shape.dimension() - 2) : 1;
        if (steps != 1 || shape.size() / in > PACKED_ROWS) {
            return null;
        }
        return packedStep.linear(weightName.substring(0, weightName.length() - ".weight".length()));
    }

    /**
     * Whether decode steps run in Java: {@link VectorKernels} is on, the engine computes on one
     * thread (the kernel runs on the calling thread only) and the heap has room for a second copy
     * of the weights beside what it holds now; says why not when it is on.
     */
    private static boolean decodesInJava(final HfConfig config) {
        if (!VectorKernels.enabled()) {
            return false;
        }
        final int threads = JniUtils.getNumThreads();
        if (threads > 1) {
            LOG.info(
                    "decode steps stay on the engine's matmul: it runs {} threads, the Vector API"
                            + " kernel one",
                    threads);
            return false;
        }
        final Runtime runtime = Runtime.getRuntime();
        final long free = runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory());
        final long needed = 4L * config.parameterCount();
        if (needed > free / 2) {
            LOG.warn(
                    "decode steps stay on the engine's matmul: a packed copy of the weights needs"
                            + " {} MB and the heap has {} MB free; raise -Xmx to use the Vector"
                            + " API kernel",
                    needed >> 20,
                    free >> 20);
            return false;
        }
        LOG.info(
                "decode steps of at most {} rows run in Java with the Vector API kernel (a packed"
                        + " copy of the weights, {} MB, made on first use)",
                PACKED_ROWS,
                needed >> 20);
        return true;
    }

    private void lap(final Part part) {
        if (profile != null) {
            profile.lap(part);
        }
    }

    private NDArray p(final String name) {
        return params.get(name);
    }

    /**
     * Tensors a checkpoint may carry that the decoder does not use: precomputed rotary frequencies,
     * and a head stored beside tied embeddings (the tie wins, as in HF).
     */
    private static Set<String> ignorable(final HfConfig config, final MappedSafetensors weights) {
        final Set<String> ignored = new HashSet<>();
        for (final String name : weights.entries().keySet()) {
            if (name.endsWith(".self_attn.rotary_emb.inv_freq")) {
                ignored.add(name);
            }
        }
        if (config.tiedEmbeddings()) {
            ignored.add("lm_head.weight");
        }
        return ignored;
    }

    private static NDArray loadTensor(
            final NDManager manager,
            final MappedSafetensors weights,
            final String name,
            final long[] shape) {
        final long elements = weights.entry(name).elements();
        if (elements <= LOAD_BLOCK) {
            return loadBlock(manager, weights, name, 0, new Shape(shape));
        }
        // large tensors (embeddings, heads) are filled in row blocks
        final long rowElements = elements / shape[0];
        final long rowsPerBlock = Math.max(1, LOAD_BLOCK / rowElements);
        final NDArray target = manager.zeros(new Shape(shape), DataType.FLOAT32);
        for (long row = 0; row < shape[0]; row += rowsPerBlock) {
            final long rows = Math.min(rowsPerBlock, shape[0] - row);
            final long[] blockShape = shape.clone();
            blockShape[0] = rows;
            try (NDArray block =
                    loadBlock(manager, weights, name, row * rowElements, new Shape(blockShape))) {
                target.set(new NDIndex("{}:{}", row, row + rows), block);
            }
        }
        return target;
    }

    private static NDArray loadBlock(
            final NDManager manager,
            final MappedSafetensors weights,
            final String name,
            final long first,
            final Shape shape) {
        final ByteBuffer native32 =
                ByteBuffer.allocateDirect(Math.toIntExact(shape.size() * 4))
                        .order(ByteOrder.nativeOrder());
        weights.read(name, first, native32.asFloatBuffer());
        // the engine aliases a direct buffer: duplicate so the tensor owns its memory
        try (NDArray aliased = manager.create(native32, shape, DataType.FLOAT32)) {
            return aliased.duplicate();
        }
    }

    /** Frees the parameters (an adapter view frees its adapter only, a profiled view nothing). */
    @Override
    public void close() {
        if (profile != null) {
            return;
        }
        if (adapter != null) {
            adapter.close();
        } else {
            manager.close();
        }
    }
}
