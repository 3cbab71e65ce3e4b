package dev.rwml.worldmodel.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Size of a decoder-only transformer world model, with named presets for tests, the demo and larger
 * runs.
 *
 * @param vocabSize number of token ids (must cover every id of the tokenizer)
 * @param dModel width of the residual stream
 * @param layers number of transformer blocks
 * @param heads attention heads per block ({@code dModel} must be divisible by it)
 * @param mlp hidden width of each block's GELU MLP
 * @param maxContext longest sequence (prompt + completion) the position table covers
 * @param tiedHead whether the LM head reuses the token-embedding matrix
 */
public record ModelConfig(
        @JsonProperty("vocabSize") int vocabSize,
        @JsonProperty("dModel") int dModel,
        @JsonProperty("layers") int layers,
        @JsonProperty("heads") int heads,
        @JsonProperty("mlp") int mlp,
        @JsonProperty("maxContext") int maxContext,
        @JsonProperty("tiedHead") boolean tiedHead) {

    public ModelConfig {
        requirePositive("vocabSize", vocabSize);
        requirePositive("dModel", dModel);
        requirePositive("layers", layers);
        requirePositive("heads", heads);
        requirePositive("mlp", mlp);
        requirePositive("maxContext", maxContext);
        if (dModel % heads != 0) {
            throw new IllegalArgumentException(
                    "dModel " + dModel + " must be divisible by heads " + heads);
        }
    }

    /** A model of a few thousand parameters for unit tests: runs a step in milliseconds. */
    public static ModelConfig tiny(final int vocabSize) {
        return new ModelConfig(vocabSize, 32, 1, 2, 64, 256, true);
    }

    /** The demo default, about d128 L2 (0.7M parameters at vocab 1024). */
    public static ModelConfig small(final int vocabSize) {
        return new ModelConfig(vocabSize, 128, 2, 4, 512, 512, true);
    }

    /** A larger model (d256 L4, about 3.7M parameters at vocab 1024) for machines with time. */
    public static ModelConfig medium(final int vocabSize) {
        return new ModelConfig(vocabSize, 256, 4, 8, 1024, 512, true);
    }

    /** Looks up a preset by name: tiny, small or medium. */
    public static ModelConfig preset(final String name, final int vocabSize) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "tiny" -> tiny(vocabSize);
            case "small" -> small(vocabSize);
            case "medium" -> medium(vocabSize);
            default ->
                    throw new IllegalArgumentException(
                            "Unknown model preset '" + name + "': use tiny, small or medium");
        };
    }

    /** The same shape with another vocabulary size (after the tokenizer is trained). */
    public ModelConfig withVocabSize(final int newVocabSize) {
        return new ModelConfig(newVocabSize, dModel, layers, heads, mlp, maxContext, tiedHead);
    }

    /**
     * The shape as the string map a model version's manifest carries ({@code modelConfig}), with
     * the parameter count, so a reader sees the model's size without opening the artifact.
     */
    public Map<String, String> toManifestMap() {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("vocabSize", Integer.toString(vocabSize));
        m.put("dModel", Integer.toString(dModel));
        m.put("layers", Integer.toString(layers));
        m.put("heads", Integer.toString(heads));
        m.put("mlp", Integer.toString(mlp));
        m.put("maxContext", Integer.toString(maxContext));
        m.put("tiedHead", Boolean.toString(tiedHead));
        m.put("parameters", Long.toString(parameterCount()));
        return m;
    }

    /** Width of one attention head. */
    public int headDim() {
        return dModel / heads;
    }

    /** Number of trainable scalars. */
    public long parameterCount() {
        final long perBlock =
                4L * dModel // two layer norms
                        + 3L * dModel * dModel
                        + 3L * dModel // qkv
                        + (long) dModel * dModel
                        + dModel // attention projection
                        + 2L * dModel * mlp
                        + mlp
                        + dModel; // MLP
        final long head = tiedHead ? 0 : (long) vocabSize * dModel;
        return (long) vocabSize * dModel
                + (long) maxContext * dModel
                + layers * perBlock
                + 2L * dModel
                + head;
    }

    /**
     * Forward FLOPs per token at a given attention length (2 per multiply-add of the matmuls), used
     * to report achieved GFLOP/s.
     */
    public double forwardFlopsPerToken(final int attendedLength) {
        final double matmul =
                2.0 * layers * (4.0 * dModel * dModel + 2.0 * dModel * mlp)
                        + 2.0 * dModel * vocabSize;
        final double attention = 2.0 * layers * 2.0 * dModel * attendedLength;
        return matmul + attention;
    }

    private static void requirePositive(final String name, final int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
