package dev.rwml.worldmodel.hf;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/**
 * Rotated keys and values of every layer of an {@link HfDecoder}, one slot per key/value head (not
 * per query head), preallocated to full length so a decoding step writes in place.
 */
public final class HfKvCache implements AutoCloseable {

    private final NDArray[] keys;
    private final NDArray[] values;
    private final int capacity;
    private int length;

    /** Allocates a cache in {@code manager} for {@code batch} rows of up to {@code capacity}. */
    public HfKvCache(
            final NDManager manager, final HfConfig config, final int batch, final int capacity) {
        if (batch <= 0 || capacity <= 0) {
            throw new IllegalArgumentException(
                    "batch and capacity must be positive, got " + batch + " and " + capacity);
        }
        this.capacity = capacity;
        this.keys = new NDArray[config.layers()];
        this.values = new NDArray[config.layers()];
        final Shape shape = new Shape(batch, config.kvHeads(), capacity, config.headDim());
        for (int l = 0; l < config.layers(); l++) {
            keys[l] = manager.zeros(shape, DataType.FLOAT32);
            values[l] = manager.zeros(shape, DataType.FLOAT32);
        }
    }

    private HfKvCache(
            final NDArray[] keys, final NDArray[] values, final int capacity, final int length) {
        this.keys = keys;
        this.values = values;
        this.capacity = capacity;
        this.length = length;
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
     * and returns views of everything cached so far, owned by the new keys' manager.
     */
    NDArray[] append(final int layer, final NDArray k, final NDArray v) {
        final int steps = (int) k.getShape().get(2);
        if (length + steps > capacity) {
            throw new IllegalStateException(
                    "KV cache full: " + length + " + " + steps + " > " + capacity);
        }
        final NDIndex slot = new NDIndex(":, :, {}:{}", length, length + steps);
        keys[layer].set(slot, k);
        values[layer].set(slot, v);
        final NDIndex upTo = new NDIndex(":, :, :{}", length + steps);
        final NDArray cachedKeys = keys[layer].get(upTo);
        final NDArray cachedValues = values[layer].get(upTo);
        cachedKeys.attach(k.getManager());
        cachedValues.attach(k.getManager());
        return new NDArray[] {cachedKeys, cachedValues};
    }

    /** Marks {@code steps} more positions as cached, after every layer appended them. */
    void advance(final int steps) {
        length += steps;
    }

    /**
     * A cache whose rows are each row of this one repeated {@code times} times in a row, so one
     * prefilled prompt serves its G samples.
     */
    public HfKvCache repeatRows(final NDManager manager, final int times) {
        final NDArray[] k = new NDArray[keys.length];
        final NDArray[] v = new NDArray[values.length];
        for (int l = 0; l < keys.length; l++) {
            k[l] = keys[l].repeat(0, times);
            v[l] = values[l].repeat(0, times);
            k[l].attach(manager);
            v[l].attach(manager);
        }
        return new HfKvCache(k, v, capacity, length);
    }

    /** Frees the cached keys and values. */
    @Override
    public void close() {
        for (int l = 0; l < keys.length; l++) {
            keys[l].close();
            values[l].close();
        }
    }
}
