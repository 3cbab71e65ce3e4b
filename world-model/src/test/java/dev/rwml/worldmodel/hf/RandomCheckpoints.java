package dev.rwml.worldmodel.hf;

import dev.rwml.worldmodel.checkpoint.MappedSafetensors;
import dev.rwml.worldmodel.checkpoint.SafetensorsFiles;
import dev.rwml.worldmodel.checkpoint.SafetensorsFiles.Stored;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/** Random checkpoints at real models' shapes, written by benchmarks instead of downloaded. */
public final class RandomCheckpoints {

    private RandomCheckpoints() {}

    /** {@link #smolLm2Shape(Path, Path)} with the tiny Qwen2 fixture's tokenizer. */
    public static HfConfig smolLm2Shape(final Path dir) throws IOException {
        return smolLm2Shape(dir, HfFixtures.checkpoint("qwen2-tiny").resolve(HfTokenizer.FILE));
    }

    /**
     * A Llama checkpoint at SmolLM2-135M's dimensions (30 layers, 576 wide, 9 heads, 3 KV heads,
     * MLP 1536, 49,152-token vocabulary, tied head, end of text id 0) with random BF16 weights (a
     * 269 MB file) and a copy of {@code tokenizer}, a {@code tokenizer.json} whose ids are inside
     * the vocabulary.
     */
    public static HfConfig smolLm2Shape(final Path dir, final Path tokenizer) throws IOException {
        Files.writeString(
                dir.resolve(HfConfig.FILE),
                """
                {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                 "hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30,
                 "num_attention_heads": 9, "num_key_value_heads": 3, "hidden_act": "silu",
                 "rms_norm_eps": 1e-5, "rope_theta": 100000, "vocab_size": 49152,
                 "max_position_embeddings": 8192, "tie_word_embeddings": true,
                 "bos_token_id": 0, "eos_token_id": 0}
                """);
        Files.copy(tokenizer, dir.resolve(HfTokenizer.FILE));
        final HfConfig config = HfConfig.load(dir);
        final SplittableRandom random = new SplittableRandom(5);
        final Map<String, Stored> tensors = new LinkedHashMap<>();
        for (final Map.Entry<String, long[]> e : config.tensorShapes().entrySet()) {
            long n = 1;
            for (final long d : e.getValue()) {
                n *= d;
            }
            final float[] values = new float[(int) n];
            final boolean norm = e.getKey().endsWith("norm.weight");
            for (int i = 0; i < values.length; i++) {
                values[i] = norm ? 1f : (float) random.nextDouble(-0.04, 0.04);
            }
            tensors.put(e.getKey(), new Stored(MappedSafetensors.DType.BF16, e.getValue(), values));
        }
        SafetensorsFiles.write(dir.resolve(MappedSafetensors.SINGLE_FILE), tensors);
        return config;
    }

    /** Deletes a directory written by {@link #smolLm2Shape} (flat). */
    public static void delete(final Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            for (final Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }
}
