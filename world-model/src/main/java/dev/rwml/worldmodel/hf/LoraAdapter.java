package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;
import dev.rwml.worldmodel.model.Scalars;
import dev.rwml.worldmodel.model.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The low-rank adapters of one decoder, in their own manager: for each adapted projection an {@code
 * A} (rank, in) and a {@code B} (out, rank) under PEFT's tensor names ({@code
 * base_model.model.<module>.lora_A.weight}), so the adapter file is one PEFT reads.
 */
public final class LoraAdapter implements AutoCloseable {

    /** PEFT's prefix of every adapter tensor name. */
    private static final String PEFT_PREFIX = "base_model.model.";

    private final LoraConfig config;
    private final NDManager manager;
    private final Map<String, NDArray[]> byModule;
    private final Map<String, NDArray> params;

    private LoraAdapter(
            final LoraConfig config,
            final NDManager manager,
            final Map<String, NDArray[]> byModule) {
        this.config = config;
        this.manager = manager;
        this.byModule = byModule;
        final Map<String, NDArray> named = new LinkedHashMap<>();
        for (final Map.Entry<String, NDArray[]> e : byModule.entrySet()) {
            named.put(nameA(e.getKey()), e.getValue()[0]);
            named.put(nameB(e.getKey()), e.getValue()[1]);
        }
        this.params = Collections.unmodifiableMap(named);
    }

    /**
     * A fresh adapter as PEFT initialises one: {@code A} uniform in +-1/sqrt(in) (Kaiming-uniform
     * with a = sqrt(5)), {@code B} zero, so the adapted model starts equal to its base; the same
     * seed gives the same adapter.
     */
    public static LoraAdapter create(
            final HfConfig model, final LoraConfig lora, final long seed, final NDManager parent) {
        final Random random = new Random(seed);
        final NDManager manager = parent.newSubManager();
        final Map<String, NDArray[]> byModule = new LinkedHashMap<>();
        for (final String module : modules(model, lora)) {
            final long[] shape = model.tensorShapes().get(module + ".weight");
            final int out = Math.toIntExact(shape[0]);
            final int in = Math.toIntExact(shape[1]);
            final float bound = (float) (1.0 / Math.sqrt(in));
            final float[] a = new float[lora.rank() * in];
            for (int i = 0; i < a.length; i++) {
                a[i] = (random.nextFloat() * 2 - 1) * bound;
            }
            byModule.put(
                    module,
                    new NDArray[] {
                        manager.create(a, new Shape(lora.rank(), in)),
                        manager.zeros(new Shape(out, lora.rank()))
                    });
        }
        return new LoraAdapter(lora, manager, byModule);
    }

    /**
     * The adapter stored in {@code tensors} (PEFT names); every adapted module of {@code model}
     * must be present with the right shapes, and nothing else.
     */
    public static LoraAdapter fromTensors(
            final HfConfig model,
            final LoraConfig lora,
            final Map<String, Tensor> tensors,
            final NDManager parent) {
        final List<String> modules = modules(model, lora);
        final Map<String, long[]> expected = new LinkedHashMap<>();
        for (final String module : modules) {
            final long[] shape = model.tensorShapes().get(module + ".weight");
            expected.put(nameA(module), new long[] {lora.rank(), shape[1]});
            expected.put(nameB(module), new long[] {shape[0], lora.rank()});
        }
        final StringBuilder problems = new StringBuilder();
        for (final Map.Entry<String, long[]> e : expected.entrySet()) {
            final Tensor t = tensors.get(e.getKey());
            if (t == null) {
                problems.append("\n  missing ").append(e.getKey());
            } else if (!Arrays.equals(t.shape(), e.getValue())) {
                problems.append("\n  ")
                        .append(e.getKey())
                        .append(" has shape ")
                        .append(Arrays.toString(t.shape()))
                        .append(", expected ")
                        .append(Arrays.toString(e.getValue()));
            }
        }
        for (final String name : tensors.keySet()) {
            if (!expected.containsKey(name)) {
                problems.append("\n  unexpected ").append(name);
            }
        }
        if (problems.length() > 0) {
            throw new IllegalArgumentException(
                    "the LoRA adapter ("
                            + lora
                            + ") does not fit the "
                            + model.architecture().className()
                            + " base:"
                            + problems);
        }
        final NDManager manager = parent.newSubManager();
        final Map<String, NDArray[]> byModule = new LinkedHashMap<>();
        for (final String module : modules) {
            byModule.put(
                    module,
                    new NDArray[] {
                        create(manager, tensors.get(nameA(module))),
                        create(manager, tensors.get(nameB(module)))
                    });
        }
        return new LoraAdapter(lora, manager, byModule);
    }

    private static NDArray create(final NDManager manager, final Tensor t) {
        return manager.create(t.data(), new Shape(t.shape()));
    }

    /** The adapted modules of {@code model}, layer by layer in the order the layer runs them. */
    private static List<String> modules(final HfConfig model, final LoraConfig lora) {
        final List<String> out = new ArrayList<>();
        for (int l = 0; l < model.layers(); l++) {
            for (final String target : LoraConfig.MODULES) {
                if (lora.targets().contains(target)) {
                    out.add(HfConfig.layerPrefix(l) + LoraConfig.block(target) + target);
                }
            }
        }
        return out;
    }

    private static String nameA(final String module) {
        return PEFT_PREFIX + module + ".lora_A.weight";
    }

    private static String nameB(final String module) {
        return PEFT_PREFIX + module + ".lora_B.weight";
    }

    /** The settings this adapter was built with. */
    public LoraConfig config() {
        return config;
    }

    /** The adapter's parameters by PEFT name: what the optimiser updates. */
    public Map<String, NDArray> parameters() {
        return params;
    }

    /** Number of adapter parameters. */
    public long parameterCount() {
        long n = 0;
        for (final NDArray p : params.values()) {
            n += p.size();
        }
        return n;
    }

    /**
     * Floats per token that training through the adapter keeps for the backward pass beyond the
     * frozen decoder's own: each adapted projection's input and output (the outer sizes of its A
     * and B), and its input once more under dropout, over every layer.
     */
    public long savedFloatsPerToken() {
        long n = 0;
        for (final NDArray[] ab : byModule.values()) {
            final long in = ab[0].getShape().get(1);
            n += in * (config.dropout() > 0 ? 2 : 1) + ab[1].getShape().get(0);
        }
        return n;
    }

    /**
     * The adapter's contribution to projection {@code module} of input {@code x}: {@code scaling *
     * B A dropout(x)}, with dropout only while {@code training}; null when the module is not
     * adapted.
     */
    NDArray delta(final String module, final NDArray x, final boolean training) {
        final NDArray[] ab = byModule.get(module);
        if (ab == null) {
            return null;
        }
        NDArray in = x;
        if (training && config.dropout() > 0) {
            in =
                    x.getNDArrayInternal()
                            .dropout(x, (float) config.dropout(), true)
                            .singletonOrThrow();
        }
        final NDArray low = Linear.linear(in, ab[0]).singletonOrThrow();
        final NDArray up = Linear.linear(low, ab[1]).singletonOrThrow();
        return up.mul(Scalars.of(up, config.scaling()));
    }

    /** {@code weight + scaling * B A} for module {@code module}, or null when not adapted. */
    NDArray merged(final String module, final NDArray weight) {
        final NDArray[] ab = byModule.get(module);
        if (ab == null) {
            return null;
        }
        final NDArray product = ab[1].matMul(ab[0]);
        return weight.add(product.mul(Scalars.of(product, config.scaling())));
    }

    /** Copies the adapter out of the engine under its PEFT names. */
    public Map<String, Tensor> toTensors() {
        return Tensor.copyOf(params);
    }

    /** Frees the adapter's arrays. */
    @Override
    public void close() {
        manager.close();
    }
}
