package dev.rwml.evaluation;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.rwml.worldmodel.model.Tensor;
import java.util.Arrays;
import java.util.Map;

/**
 * The paper's count of changed parameters: a parameter changed when {@code |w' - w| > 1e-3 *
 * max(|w|, |w'|)}, so a relative change below 0.1% (float noise, a tiny update) does not count.
 *
 * @param changed parameters that changed
 * @param total parameters compared
 */
public record ParameterDrift(long changed, long total) {

    /** The relative change a parameter must exceed to count as changed. */
    public static final double RELATIVE_TOLERANCE = 1e-3;

    /** The fraction of parameters changed. */
    @JsonProperty("fraction")
    public double fraction() {
        return total == 0 ? 0 : (double) changed / total;
    }

    /** Whether one value changed by the criterion. */
    public static boolean changed(final float base, final float model) {
        return Math.abs((double) model - base)
                > RELATIVE_TOLERANCE * Math.max(Math.abs((double) base), Math.abs((double) model));
    }

    /**
     * Compares two models' weights tensor by tensor.
     *
     * @throws IllegalArgumentException when the models do not have the same tensors and shapes
     */
    public static ParameterDrift between(
            final Map<String, Tensor> base, final Map<String, Tensor> model) {
        if (!base.keySet().equals(model.keySet())) {
            throw new IllegalArgumentException(
                    "the model and its base hold different tensors ("
                            + model.keySet()
                            + " vs "
                            + base.keySet()
                            + "); compare a model only with version 0 of its own run");
        }
        long changed = 0;
        long total = 0;
        for (final Map.Entry<String, Tensor> e : base.entrySet()) {
            final Tensor b = e.getValue();
            final Tensor m = model.get(e.getKey());
            if (!Arrays.equals(b.shape(), m.shape())) {
                throw new IllegalArgumentException(
                        "tensor "
                                + e.getKey()
                                + " has shape "
                                + Arrays.toString(m.shape())
                                + " but "
                                + Arrays.toString(b.shape())
                                + " in the base; compare a model only with version 0 of its own"
                                + " run");
            }
            for (int i = 0; i < b.data().length; i++) {
                if (changed(b.data()[i], m.data()[i])) {
                    changed++;
                }
            }
            total += b.data().length;
        }
        return new ParameterDrift(changed, total);
    }
}
