package dev.rwml.worldmodel.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * A linear layer's weight (out, in) copied out of the engine once and laid out for decode steps,
 * computed by the Java Vector API on the calling thread: {@code y = x W^T + b} for a few rows of
 * {@code x}. Decoding reads every weight once per step for a handful of rows, so its speed is the
 * speed at which the weights stream from memory; on this project's CPU the engine's matrix kernel
 * read them at about half the machine's streaming rate, this one at about the streaming rate.
 *
 * <p>The weight is stored in panels of {@link #PANEL} output columns, each panel {@code in} rows of
 * {@code PANEL} floats, so a step reads memory front to back; eight rows of {@code x} are
 * multiplied against one pass over a panel, their sums held in registers (a tail of two to seven
 * rows is padded to eight; a single row has its own loop, which streams). Only loaded when {@link
 * VectorKernels#enabled()} says the incubator module is there.
 */
public final class PackedLinear {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();

    /** Output columns per panel: two vectors. */
    public static final int PANEL = 2 * LANES;

    private final int in;
    private final int out;
    private final float[] panels;
    private final float[] bias;

    private PackedLinear(final int in, final int out, final float[] panels, final float[] bias) {
        this.in = in;
        this.out = out;
        this.panels = panels;
        this.bias = bias;
    }

    /**
     * Packs {@code weight} (out, in) and the optional {@code bias} (out) copied from the engine.
     */
    public static PackedLinear of(final NDArray weight, final NDArray bias) {
        final Shape shape = weight.getShape();
        final int out = Math.toIntExact(shape.get(0));
        final int in = Math.toIntExact(shape.get(1));
        return of(weight.toFloatArray(), out, in, bias == null ? null : bias.toFloatArray());
    }

    /** Packs a row-major (out, in) weight; columns past {@code out} in the last panel are zero. */
    static PackedLinear of(final float[] weight, final int out, final int in, final float[] bias) {
        final int panelCount = (out + PANEL - 1) / PANEL;
        final float[] panels = new float[Math.multiplyExact(panelCount * PANEL, in)];
        for (int o = 0; o < out; o++) {
            final int base = (o / PANEL) * PANEL * in + o % PANEL;
            final int row = o * in;
            for (int i = 0; i < in; i++) {
                panels[base + i * PANEL] = weight[row + i];
            }
        }
        return new PackedLinear(in, out, panels, bias == null ? null : bias.clone());
    }

    /**
     * {@code x W^T + b} of {@code x} (..., in) on the CPU in float32, as (..., out) in {@code x}'s
     * manager.
     */
    public NDArray apply(final NDArray x) {
        final Shape shape = x.getShape();
        final int rows = Math.toIntExact(shape.size() / in);
        final float[] y = apply(x.toFloatArray(), rows);
        final long[] dims = shape.getShape().clone();
        dims[dims.length - 1] = out;
        return x.getManager().create(y, new Shape(dims));
    }

    /** {@code x W^T + b} of {@code rows} rows of {@code x}, row-major (rows, in) -> (rows, out). */
    public float[] apply(final float[] x, final int rows) {
        final float[] y = new float[rows * out];
        int r = 0;
        for (; r + 8 <= rows; r += 8) {
            eight(x, r, y);
        }
        final int left = rows - r;
        if (left == 1) {
            one(x, r, y);
        } else if (left > 1) {
            // two to seven rows: one pass over the weights as eight, the missing rows zero
            final float[] padded = new float[8 * in];
            System.arraycopy(x, r * in, padded, 0, left * in);
            final float[] sums = new float[8 * out];
            eight(padded, 0, sums);
            System.arraycopy(sums, 0, y, r * out, left * out);
        }
        if (bias != null) {
            for (int row = 0; row < rows; row++) {
                final int yb = row * out;
                for (int o = 0; o < out; o++) {
                    y[yb + o] += bias[o];
                }
            }
        }
        return y;
    }

    private void eight(final float[] x, final int r0, final float[] y) {
        final int x0 = r0 * in;
        for (int p = 0; p * PANEL < out; p++) {
            final int pb = p * PANEL * in;
            FloatVector a0 = FloatVector.zero(SPECIES);
            FloatVector b0 = FloatVector.zero(SPECIES);
            FloatVector a1 = FloatVector.zero(SPECIES);
            FloatVector b1 = FloatVector.zero(SPECIES);
            FloatVector a2 = FloatVector.zero(SPECIES);
            FloatVector b2 = FloatVector.zero(SPECIES);
            FloatVector a3 = FloatVector.zero(SPECIES);
            FloatVector b3 = FloatVector.zero(SPECIES);
            FloatVector a4 = FloatVector.zero(SPECIES);
            FloatVector b4 = FloatVector.zero(SPECIES);
            FloatVector a5 = FloatVector.zero(SPECIES);
            FloatVector b5 = FloatVector.zero(SPECIES);
            FloatVector a6 = FloatVector.zero(SPECIES);
            FloatVector b6 = FloatVector.zero(SPECIES);
            FloatVector a7 = FloatVector.zero(SPECIES);
            FloatVector b7 = FloatVector.zero(SPECIES);
            for (int i = 0; i < in; i++) {
                final int wi = pb + i * PANEL;
                final FloatVector w0 = FloatVector.fromArray(SPECIES, panels, wi);
                final FloatVector w1 = FloatVector.fromArray(SPECIES, panels, wi + LANES);
                final int xi = x0 + i;
                FloatVector v = FloatVector.broadcast(SPECIES, x[xi]);
                a0 = w0.fma(v, a0);
                b0 = w1.fma(v, b0);
                v = FloatVector.broadcast(SPECIES, x[xi + in]);
                a1 = w0.fma(v, a1);
                b1 = w1.fma(v, b1);
                v = FloatVector.broadcast(SPECIES, x[xi + 2 * in]);
                a2 = w0.fma(v, a2);
                b2 = w1.fma(v, b2);
                v = FloatVector.broadcast(SPECIES, x[xi + 3 * in]);
                a3 = w0.fma(v, a3);
                b3 = w1.fma(v, b3);
                v = FloatVector.broadcast(SPECIES, x[xi + 4 * in]);
                a4 = w0.fma(v, a4);
                b4 = w1.fma(v, b4);
                v = FloatVector.broadcast(SPECIES, x[xi + 5 * in]);
                a5 = w0.fma(v, a5);
                b5 = w1.fma(v, b5);
                v = FloatVector.broadcast(SPECIES, x[xi + 6 * in]);
                a6 = w0.fma(v, a6);
                b6 = w1.fma(v, b6);
                v = FloatVector.broadcast(SPECIES, x[xi + 7 * in]);
                a7 = w0.fma(v, a7);
                b7 = w1.fma(v, b7);
            }
            final int col = p * PANEL;
            store(a0, b0, y, r0, col);
            store(a1, b1, y, r0 + 1, col);
            store(a2, b2, y, r0 + 2, col);
            store(a3, b3, y, r0 + 3, col);
            store(a4, b4, y, r0 + 4, col);
            store(a5, b5, y, r0 + 5, col);
            store(a6, b6, y, r0 + 6, col);
            store(a7, b7, y, r0 + 7, col);
        }
    }

    /** One row: four independent sums per panel, so the additions do not wait on each other. */
    private void one(final float[] x, final int r, final float[] y) {
        final int x0 = r * in;
        for (int p = 0; p * PANEL < out; p++) {
            final int pb = p * PANEL * in;
            FloatVector a0 = FloatVector.zero(SPECIES);
            FloatVector b0 = FloatVector.zero(SPECIES);
            FloatVector a1 = FloatVector.zero(SPECIES);
            FloatVector b1 = FloatVector.zero(SPECIES);
            int i = 0;
            for (; i + 2 <= in; i += 2) {
                final int wi = pb + i * PANEL;
                final FloatVector v0 = FloatVector.broadcast(SPECIES, x[x0 + i]);
                final FloatVector v1 = FloatVector.broadcast(SPECIES, x[x0 + i + 1]);
                a0 = FloatVector.fromArray(SPECIES, panels, wi).fma(v0, a0);
                b0 = FloatVector.fromArray(SPECIES, panels, wi + LANES).fma(v0, b0);
                a1 = FloatVector.fromArray(SPECIES, panels, wi + PANEL).fma(v1, a1);
                b1 = FloatVector.fromArray(SPECIES, panels, wi + PANEL + LANES).fma(v1, b1);
            }
            if (i < in) {
                final int wi = pb + i * PANEL;
                final FloatVector v0 = FloatVector.broadcast(SPECIES, x[x0 + i]);
                a0 = FloatVector.fromArray(SPECIES, panels, wi).fma(v0, a0);
                b0 = FloatVector.fromArray(SPECIES, panels, wi + LANES).fma(v0, b0);
            }
            store(a0.add(a1), b0.add(b1), y, r, p * PANEL);
        }
    }

    /** Writes a panel's two vectors of sums into row {@code row}, columns from {@code col}. */
    private void store(
            final FloatVector low,
            final FloatVector high,
            final float[] y,
            final int row,
            final int col) {
        final int yb = row * out + col;
        if (col + PANEL <= out) {
            low.intoArray(y, yb);
            high.intoArray(y, yb + LANES);
            return;
        }
        // the last panel of an output size that is not a multiple of PANEL
        final float[] sums = new float[PANEL];
        low.intoArray(sums, 0);
        high.intoArray(sums, LANES);
        System.arraycopy(sums, 0, y, yb, out - col);
    }
}
