package dev.rwml.worldmodel.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.model.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * AdamW (decoupled weight decay, Loshchilov and Hutter) over named parameters, updating them in
 * place; its moments can be exported and restored with a checkpoint.
 */
public final class AdamW implements AutoCloseable {

    private final NDManager manager;
    private final Map<String, NDArray> first = new LinkedHashMap<>();
    private final Map<String, NDArray> second = new LinkedHashMap<>();
    private long steps;

    /** An optimiser whose state lives in a sub-manager of {@code parent}. */
    public AdamW(final NDManager parent) {
        this.manager = parent.newSubManager();
    }

    /** Optimiser steps taken so far. */
    public long steps() {
        return steps;
    }

    /**
     * Applies one update with the parameters' gradients multiplied by {@code gradScale} (the
     * clipping factor). Must run with autograd recording off.
     */
    public void step(
            final Map<String, NDArray> params,
            final Map<String, NDArray> grads,
            final TrainConfig config,
            final double learningRate,
            final float gradScale) {
        steps++;
        final double bias1 = 1 - Math.pow(config.beta1(), steps);
        final double bias2 = 1 - Math.pow(config.beta2(), steps);
        final float stepSize = (float) (learningRate / bias1);
        final float decay = (float) (1 - learningRate * config.weightDecay());
        for (final Map.Entry<String, NDArray> e : params.entrySet()) {
            final String name = e.getKey();
            final NDArray p = e.getValue();
            final NDArray m =
                    first.computeIfAbsent(name, k -> manager.zeros(p.getShape(), p.getDataType()));
            final NDArray v =
                    second.computeIfAbsent(name, k -> manager.zeros(p.getShape(), p.getDataType()));
            try (NDManager tmp = manager.newSubManager()) {
                // temporaries follow their first operand: attach everything to tmp for the update
                p.tempAttach(tmp);
                m.tempAttach(tmp);
                v.tempAttach(tmp);
                final NDArray g = grads.get(name).mul(gradScale);
                m.muli((float) config.beta1()).addi(g.mul((float) (1 - config.beta1())));
                v.muli((float) config.beta2()).addi(g.square().muli((float) (1 - config.beta2())));
                final NDArray denom = v.div((float) bias2).sqrt().addi((float) config.epsilon());
                if (p.getShape().dimension() >= 2 && config.weightDecay() > 0) {
                    p.muli(decay);
                }
                p.subi(m.div(denom).muli(stepSize));
            }
        }
    }

    /** The moments as tensors ({@code m.<name>}, {@code v.<name>}) and the step count. */
    public Map<String, Tensor> toTensors() {
        final Map<String, Tensor> out = new LinkedHashMap<>();
        first.forEach((k, a) -> out.put("m." + k, Tensor.copyOf(a)));
        second.forEach((k, a) -> out.put("v." + k, Tensor.copyOf(a)));
        out.put("step", new Tensor(new long[] {1}, new float[] {steps}));
        return out;
    }

    /** Restores moments written by {@link #toTensors()}. */
    public void load(final Map<String, Tensor> tensors) {
        for (final Map.Entry<String, Tensor> e : tensors.entrySet()) {
            final String key = e.getKey();
            if (key.equals("step")) {
                steps = (long) e.getValue().data()[0];
                continue;
            }
            final NDArray array =
                    manager.create(e.getValue().data(), new Shape(e.getValue().shape()));
            if (key.startsWith("m.")) {
                replace(first, key.substring(2), array);
            } else if (key.startsWith("v.")) {
                replace(second, key.substring(2), array);
            } else {
                throw new IllegalArgumentException(
                        "unknown optimizer tensor '" + key + "': expected m.*, v.* or step");
            }
        }
    }

    private static void replace(
            final Map<String, NDArray> map, final String key, final NDArray array) {
        final NDArray old = map.put(key, array);
        if (old != null) {
            old.close();
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}
