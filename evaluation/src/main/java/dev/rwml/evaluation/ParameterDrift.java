package dev.rwml.evaluation;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.rwml.worldmodel.model.Tensor;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The paper's count of changed parameters: a parameter changed when {@code |w' - w| > 1e-3 *
 * max(|w|, |w'|)}, so a relative change below 0.1% (float noise, a tiny update) does not count;
 * counted over every tensor and again without the embedding tables (which a token seen in training
 * moves row by row), with each tensor's relative change {@code ||w' - w|| / ||w||}.
 *
 * @param changed parameters that changed
 * @param total parameters compared
 * @param changedWithoutEmbeddings parameters that changed outside {@link #EMBEDDINGS}
 * @param totalWithoutEmbeddings parameters compared outside {@link #EMBEDDINGS}
 * @param relativeChange per tensor, in the base's order, the L2 norm of the change over that of the
 *     base's tensor (0 for a tensor of zeros that stayed so, NaN for one that moved from zeros)
 */
public record ParameterDrift(
        long changed,
        long total,
        long changedWithoutEmbeddings,
        long totalWithoutEmbeddings,
        Map<String, Double> relativeChange) {

    /** The relative change a parameter must exceed to count as changed. */
    public static final double RELATIVE_TOLERANCE = 1e-3;

    /**
     * The small model's embedding tables: token and position embeddings ({@code TransformerLM}).
     */
    public static final Set<String> EMBEDDINGS = Set.of("tok_emb.weight", "pos_emb.weight");

    public ParameterDrift {
        relativeChange = Collections.unmodifiableMap(new LinkedHashMap<>(relativeChange));
    }

    /** The fraction of parameters changed. */
    @JsonProperty("fraction")
    public double fraction() {
        return total == 0 ? 0 : (double) changed / total;
    }

    /** The fraction of parameters changed outside the embedding tables. */
    @JsonProperty("fractionWithoutEmbeddings")
    public double fractionWithoutEmbeddings() {
        return totalWithoutEmbeddings == 0
                ? 0
                : (double) changedWithoutEmbeddings / totalWithoutEmbeddings;
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
        long changedOutside = 0;
        long totalOutside = 0;
        final Map<String, Double> relative = new LinkedHashMap<>();
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
            long changedHere = 0;
            double baseSquares = 0;
            double deltaSquares = 0;
            for (int i = 0; i < b.data().length; i++) {
                final double w = b.data()[i];
                final double delta = m.data()[i] - w;
                baseSquares += w * w;
                deltaSquares += delta * delta;
                if (changed(b.data()[i], m.data()[i])) {
                    changedHere++;
                }
            }
            relative.put(
                    e.getKey(),
                    deltaSquares == 0
                            ? 0
                            : baseSquares == 0
                                    ? Double.NaN
                                    : Math.sqrt(deltaSquares / baseSquares));
            changed += changedHere;
            total += b.data().length;
            if (!EMBEDDINGS.contains(e.getKey())) {
                changedOutside += changedHere;
                totalOutside += b.data().length;
            }
        }
        return new ParameterDrift(changed, total, changedOutside, totalOutside, relative);
    }
}
