package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The shape of a Hugging Face decoder checkpoint as its {@code config.json} describes it,
 * validated, with the exact tensor names and shapes its weights must have.
 *
 * @param architecture which decoder family
 * @param hiddenSize width of the residual stream
 * @param intermediateSize hidden width of each SwiGLU MLP
 * @param layers number of decoder layers
 * @param heads query heads per layer
 * @param kvHeads key/value heads per layer (grouped-query attention when fewer than {@code heads})
 * @param headDim width of one head (explicit in the config, or hidden size / heads)
 * @param rmsNormEps epsilon of every RMSNorm
 * @param ropeTheta base of the rotary embedding's frequencies
 * @param tiedEmbeddings whether the LM head is the token-embedding matrix
 * @param vocabSize rows of the embedding and the head
 * @param maxPositions longest context the checkpoint was trained for
 * @param qkvBias whether q, k and v projections carry a bias
 * @param outputBias whether the attention output projection carries a bias
 * @param mlpBias whether the gate, up and down projections carry a bias
 * @param bosTokenId the beginning-of-sequence id, when the config names one
 * @param eosTokenIds every id that ends a generation (one or several)
 */
public record HfConfig(
        HfArchitecture architecture,
        int hiddenSize,
        int intermediateSize,
        int layers,
        int heads,
        int kvHeads,
        int headDim,
        double rmsNormEps,
        double ropeTheta,
        boolean tiedEmbeddings,
        int vocabSize,
        int maxPositions,
        boolean qkvBias,
        boolean outputBias,
        boolean mlpBias,
        OptionalInt bosTokenId,
        List<Integer> eosTokenIds) {

    /** The file name of the configuration inside a checkpoint directory. */
    public static final String FILE = "config.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    public HfConfig {
        positive("hidden_size", hiddenSize);
        positive("intermediate_size", intermediateSize);
        positive("num_hidden_layers", layers);
        positive("num_attention_heads", heads);
        positive("num_key_value_heads", kvHeads);
        positive("head_dim", headDim);
        positive("vocab_size", vocabSize);
        positive("max_position_embeddings", maxPositions);
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException(
                    "num_attention_heads "
                            + heads
                            + " must be a multiple of num_key_value_heads "
                            + kvHeads);
        }
        if (headDim % 2 != 0) {
            throw new IllegalArgumentException(
                    "head_dim " + headDim + " must be even for the rotary embedding");
        }
        if (!(rmsNormEps > 0) || !(ropeTheta > 0)) {
            throw new IllegalArgumentException(
                    "rms_norm_eps and rope_theta must be positive, got "
                            + rmsNormEps
                            + " and "
                            + ropeTheta);
        }
        eosTokenIds = List.copyOf(eosTokenIds);
    }

    /** Reads {@code config.json} from a checkpoint directory. */
    public static HfConfig load(final Path checkpointDir) {
        final Path file = checkpointDir.resolve(FILE);
        try {
            return parse(Files.readString(file));
        } catch (final NoSuchFileException e) {
            throw new IllegalArgumentException(
                    "no " + FILE + " in " + checkpointDir + ": is it a Hugging Face checkpoint?",
                    e);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** Parses the text of a {@code config.json}. */
    public static HfConfig parse(final String json) {
        final JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (final IOException e) {
            throw new IllegalArgumentException("config is not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("config must be a JSON object");
        }
        final HfArchitecture arch = HfArchitecture.of(architectureName(root));
        final String act = root.path("hidden_act").asText("silu");
        if (!act.equals("silu")) {
            throw new IllegalArgumentException(
                    "hidden_act " + act + " is not supported: the SwiGLU MLP needs silu");
        }
        if (root.path("use_sliding_window").asBoolean(false)) {
            throw new IllegalArgumentException(
                    "use_sliding_window=true is not supported: every layer attends to the whole"
                            + " context here");
        }
        final int hidden = required(root, "hidden_size");
        final int heads = required(root, "num_attention_heads");
        final int headDim =
                root.hasNonNull("head_dim") ? root.get("head_dim").asInt() : hidden / heads;
        if (!root.hasNonNull("head_dim") && hidden % heads != 0) {
            throw new IllegalArgumentException(
                    "hidden_size "
                            + hidden
                            + " is not divisible by num_attention_heads "
                            + heads
                            + " and no head_dim is given");
        }
        final boolean attentionBias = root.path("attention_bias").asBoolean(false);
        return new HfConfig(
                arch,
                hidden,
                required(root, "intermediate_size"),
                required(root, "num_hidden_layers"),
                heads,
                root.hasNonNull("num_key_value_heads")
                        ? root.get("num_key_value_heads").asInt()
                        : heads,
                headDim,
                root.path("rms_norm_eps").asDouble(1e-6),
                ropeTheta(root),
                root.path("tie_word_embeddings").asBoolean(false),
                required(root, "vocab_size"),
                root.hasNonNull("max_position_embeddings")
                        ? root.get("max_position_embeddings").asInt()
                        : (arch == HfArchitecture.LLAMA ? 2048 : 32768),
                arch.qkvBiasAlways() || attentionBias,
                arch != HfArchitecture.QWEN2 && attentionBias,
                arch == HfArchitecture.LLAMA && root.path("mlp_bias").asBoolean(false),
                root.hasNonNull("bos_token_id")
                        ? OptionalInt.of(root.get("bos_token_id").asInt())
                        : OptionalInt.empty(),
                eosIds(root.get("eos_token_id")));
    }

    /** Weights in the checkpoint (every tensor {@link #tensorShapes} names). */
    public long parameterCount() {
        long n = 0;
        for (final long[] shape : tensorShapes().values()) {
            long size = 1;
            for (final long d : shape) {
                size *= d;
            }
            n += size;
        }
        return n;
    }

    /** The shape as a model version's manifest states it ({@code modelConfig}). */
    public Map<String, String> toManifestMap() {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("family", "hf");
        m.put("architecture", architecture.className());
        m.put("vocabSize", Integer.toString(vocabSize));
        m.put("hiddenSize", Integer.toString(hiddenSize));
        m.put("intermediateSize", Integer.toString(intermediateSize));
        m.put("layers", Integer.toString(layers));
        m.put("heads", Integer.toString(heads));
        m.put("kvHeads", Integer.toString(kvHeads));
        m.put("headDim", Integer.toString(headDim));
        m.put("maxContext", Integer.toString(maxPositions));
        m.put("tiedHead", Boolean.toString(tiedEmbeddings));
        m.put("parameters", Long.toString(parameterCount()));
        return m;
    }

    /** Query heads that share one key/value head. */
    public int groupSize() {
        return heads / kvHeads;
    }

    /** Every weight the checkpoint must hold, by exact Hugging Face name, in layer order. */
    public Map<String, long[]> tensorShapes() {
        final Map<String, long[]> shapes = new LinkedHashMap<>();
        final long q = (long) heads * headDim;
        final long kv = (long) kvHeads * headDim;
        shapes.put("model.embed_tokens.weight", new long[] {vocabSize, hiddenSize});
        for (int l = 0; l < layers; l++) {
            final String p = layerPrefix(l);
            shapes.put(p + "input_layernorm.weight", new long[] {hiddenSize});
            projection(shapes, p + "self_attn.q_proj", q, hiddenSize, qkvBias);
            projection(shapes, p + "self_attn.k_proj", kv, hiddenSize, qkvBias);
            projection(shapes, p + "self_attn.v_proj", kv, hiddenSize, qkvBias);
            projection(shapes, p + "self_attn.o_proj", hiddenSize, q, outputBias);
            if (architecture.qkNorm()) {
                shapes.put(p + "self_attn.q_norm.weight", new long[] {headDim});
                shapes.put(p + "self_attn.k_norm.weight", new long[] {headDim});
            }
            shapes.put(p + "post_attention_layernorm.weight", new long[] {hiddenSize});
            projection(shapes, p + "mlp.gate_proj", intermediateSize, hiddenSize, mlpBias);
            projection(shapes, p + "mlp.up_proj", intermediateSize, hiddenSize, mlpBias);
            projection(shapes, p + "mlp.down_proj", hiddenSize, intermediateSize, mlpBias);
        }
        shapes.put("model.norm.weight", new long[] {hiddenSize});
        if (!tiedEmbeddings) {
            shapes.put("lm_head.weight", new long[] {vocabSize, hiddenSize});
        }
        return shapes;
    }

    /** The name prefix of one decoder layer's tensors. */
    static String layerPrefix(final int layer) {
        return "model.layers." + layer + ".";
    }

    private static void projection(
            final Map<String, long[]> shapes,
            final String name,
            final long out,
            final long in,
            final boolean bias) {
        shapes.put(name + ".weight", new long[] {out, in});
        if (bias) {
            shapes.put(name + ".bias", new long[] {out});
        }
    }

    private static String architectureName(final JsonNode root) {
        final JsonNode archs = root.get("architectures");
        if (archs == null || !archs.isArray() || archs.isEmpty()) {
            throw new IllegalArgumentException(
                    "config names no architectures: supported are " + HfArchitecture.supported());
        }
        if (archs.size() > 1) {
            throw new IllegalArgumentException(
                    "config names several architectures " + archs + ": expected exactly one");
        }
        return archs.get(0).asText();
    }

    private static double ropeTheta(final JsonNode root) {
        final JsonNode params = root.get("rope_parameters");
        final JsonNode scaling = root.get("rope_scaling");
        for (final JsonNode node : new JsonNode[] {params, scaling}) {
            if (node != null && node.isObject()) {
                final String type =
                        node.path("rope_type").asText(node.path("type").asText("default"));
                if (!type.equals("default")) {
                    throw new IllegalArgumentException(
                            "rope type "
                                    + type
                                    + " is not supported: only the default rotary embedding"
                                    + " (rope_scaling null) is implemented");
                }
            }
        }
        if (params != null && params.hasNonNull("rope_theta")) {
            return params.get("rope_theta").asDouble();
        }
        return root.path("rope_theta").asDouble(10000.0);
    }

    private static List<Integer> eosIds(final JsonNode node) {
        final List<Integer> ids = new ArrayList<>();
        if (node == null || node.isNull()) {
            return ids;
        }
        if (node.isArray()) {
            node.forEach(n -> ids.add(n.asInt()));
        } else if (node.isIntegralNumber()) {
            ids.add(node.asInt());
        } else {
            throw new IllegalArgumentException(
                    "eos_token_id must be a number or a list of numbers, got " + node);
        }
        return ids;
    }

    private static int required(final JsonNode root, final String field) {
        final JsonNode node = root.get(field);
        if (node == null || !node.isIntegralNumber()) {
            throw new IllegalArgumentException("config needs an integer " + field);
        }
        return node.asInt();
    }

    private static void positive(final String field, final int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, got " + value);
        }
    }
}
