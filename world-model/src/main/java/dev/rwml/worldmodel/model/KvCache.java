package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/**
 * Keys and values of every layer for a batch of sequences being generated, preallocated to their
 * full length so a decoding step writes in place instead of copying the whole cache.
 */
public final class KvCache implements AutoCloseable {

    private final NDArray[] keys;
    private final NDArray[] values;
    private final int capacity;
    private int length;

    /**
     * Per layer, the keys and values copied out of the engine for decode steps computed in Java
     * (null until {@link #onHost} first asks for a layer); from then on the newest positions are
     * only here.
     */
    private float[][] hostKeys;

    private float[][] hostValues;

    /** Allocates a cache of the small GPT {@code config} (one slot per attention head). */
    public KvCache(
            final NDManager manager,
            final ModelConfig config,
            final int batch,
            final int capacity) {
        this(manager, config.layers(), config.heads(), config.headDim(), batch, capacity);
    }

    /**
     * Allocates a cache in {@code manager} for {@code batch} rows of up to {@code capacity}
     * positions, one slot per key/value head (grouped-query attention caches fewer heads than it
     * queries).
     */
    public KvCache(
            final NDManager manager,
            final int layers,
            final int kvHeads,
            final int headDim,
            final int batch,
            final int capacity) {
        if (batch <= 0 || capacity <= 0) {
            throw new IllegalArgumentException(
                    "batch and capacity must be positive, got " + batch + " and " + capacity);
        }
        this.capacity = capacity;
        this.keys = new NDArray[layers];
        this.values = new NDArray[layers];
        final Shape shape = new Shape(batch, kvHeads, capacity, headDim);
        for (int l = 0; l < layers; l++) {
            keys[l] = manager.zeros(shape, DataType.FLOAT32);
            values[l] = manager.zeros(shape, DataType.FLOAT32);
        }
    }

    /** Positions already cached. */
    public int length() {
        return length;
    }

    /** Positions the cache can hold. */
    public int capacity() {
        return capacity;
    }

    /**
     * Writes a layer's new keys and values (batch, kvHeads, steps, headDim) after the cached ones
     * and returns views of everything cached so far, new steps included (a model's forward calls
     * this, once per layer).
     */
    public NDArray[] append(final int layer, final NDArray k, final NDArray v) {
        if (hostKeys != null) {
            throw new IllegalStateException(
                    "this cache's newest positions are held in Java (onHost): the engine cannot"
                            + " append to it");
        }
        final int steps = (int) k.getShape().get(2);
        if (length + steps > capacity) {
            throw new IllegalStateException(
                    "KV cache full: " + length + " + " + steps + " > " + capacity);
        }
        // built, not parsed: a decoding step writes every layer's cache twice
        final NDIndex slot = new NDIndex().addAllDim(2).addSliceDim(length, length + steps);
        keys[layer].set(slot, k);
        values[layer].set(slot, v);
        final NDIndex upTo = new NDIndex().addAllDim(2).addSliceDim(0, length + steps);
        final NDArray cachedKeys = keys[layer].get(upTo);
        final NDArray cachedValues = values[layer].get(upTo);
        // the views belong to the step that asked for them, not to the cache's manager
        cachedKeys.attach(k.getManager());
        cachedValues.attach(k.getManager());
        return new NDArray[] {cachedKeys, cachedValues};
    }

    /**
     * Layer {@code layer}'s keys and values as float arrays (batch, kvHeads, capacity, headDim),
     * copied from the engine on the first call for the layer, for decode steps that attend in Java
     * and write their new position into them; after that the engine's {@link #append} refuses.
     */
    public float[][] onHost(final int layer) {
        if (hostKeys == null) {
            hostKeys = new float[keys.length][];
            hostValues = new float[values.length][];
        }
        if (hostKeys[layer] == null) {
            hostKeys[layer] = keys[layer].toFloatArray();
            hostValues[layer] = values[layer].toFloatArray();
        }
        return new float[][] {hostKeys[layer], hostValues[layer]};
    }

    /** Marks {@code steps} more positions as cached, after every layer appended them. */
    public void advance(final int steps) {
        length += steps;
    }

    /**
     * A cache whose row i is row {@code rows[i]} of this one (rows may repeat), so one prefilled
     * prompt serves its G samples; in a gradient collector the gradient flows back to this cache's
     * keys and values.
     */
    public KvCache selectRows(final NDManager manager, final long[] rows) {
        if (hostKeys != null) {
            throw new IllegalStateException(
                    "this cache's newest positions are held in Java (onHost): the engine cannot"
                            + " select its rows");
        }
        final NDArray[] k = new NDArray[keys.length];
        final NDArray[] v = new NDArray[values.length];
        // The index stays open with the manager: autograd keeps it for the backward pass.
        final NDArray index = manager.create(rows);
        for (int l = 0; l < keys.length; l++) {
            k[l] = keys[l].get(index);
            v[l] = values[l].get(index);
            k[l].attach(manager);
            v[l].attach(manager);
        }
        return new KvCache(k, v, capacity, length);
    }

    /** Frees the cached keys and values. */
    @Override
    public void close() {
        for (int l = 0; l < keys.length; l++) {
            keys[l].close();
            values[l].close();
        }
    }

    private KvCache(
            final NDArray[] keys, final NDArray[] values, final int capacity, final int length) {
        this.keys = keys;
        this.values = values;
        this.capacity = capacity;
        this.length = length;
    }
}
