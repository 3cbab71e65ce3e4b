package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.checkpoint.MappedSafetensors;
import dev.rwml.worldmodel.checkpoint.MappedSafetensors.DType;
import dev.rwml.worldmodel.checkpoint.SafetensorsFiles;
import dev.rwml.worldmodel.checkpoint.SafetensorsFiles.Stored;
import dev.rwml.worldmodel.model.SequenceBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Qwen3 has no golden fixture: there are no logits from an independent implementation to compare
 * with. This test writes a tiny random Qwen3 checkpoint (explicit head_dim wider than hidden /
 * heads, grouped-query attention, per-head q_norm/k_norm) and compares the decoder with {@link
 * ReferenceDecoder}, a float64 loop implementation written from Hugging Face's modeling_qwen3
 * (q_norm and k_norm applied to each head after the projections and before the rotary embedding),
 * which itself reproduces the Qwen2 and Llama fixtures.
 */
class Qwen3DecoderTest {

    private static final Logger LOG = LoggerFactory.getLogger(Qwen3DecoderTest.class);
    private static final int[] IDS = {3, 17, 0, 49, 8, 8, 21, 33, 5, 12, 40, 1};

    @TempDir Path dir;

    @Test
    void shouldMatchTheReferenceWithTiedHeadAndF32Weights() throws IOException {
        check(false, false, DType.F32);
    }

    @Test
    void shouldMatchTheReferenceWithUntiedHeadAttentionBiasAndBf16Weights() throws IOException {
        check(true, true, DType.BF16);
    }

    @Test
    void shouldGiveEveryParameterAGradient() throws IOException {
        final Path checkpoint = writeCheckpoint(dir, true, true, DType.F32, 5);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(checkpoint, manager)) {
            model.setTrainable(true);
            final SequenceBatch batch =
                    SequenceBatch.of(
                            List.of(
                                    new SequenceBatch.Pair(new int[] {3, 17, 9}, new int[] {4, 2}),
                                    new SequenceBatch.Pair(new int[] {8}, new int[] {1, 30, 7})),
                            0,
                            64);
            try (NDManager step = manager.newSubManager();
                    GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                final NDArray logProbs = batch.logProbs(model, step);
                final NDArray mask =
                        step.create(
                                batch.completionMask(),
                                new ai.djl.ndarray.types.Shape(batch.rows(), batch.length() - 1));
                collector.backward(logProbs.mul(mask).sum().neg());
                for (final Map.Entry<String, NDArray> p : model.parameters().entrySet()) {
                    final float norm = p.getValue().getGradient().abs().sum().getFloat();
                    assertThat(norm).as("gradient of " + p.getKey()).isGreaterThan(0f);
                }
            }
        }
    }

    private void check(final boolean untied, final boolean bias, final DType dtype)
            throws IOException {
        final Path checkpoint = writeCheckpoint(dir, untied, bias, dtype, 7);
        final HfConfig config = HfConfig.load(checkpoint);
        assertThat(config.architecture()).isEqualTo(HfArchitecture.QWEN3);
        assertThat(config.outputBias()).isEqualTo(bias);
        // the reference reads the stored (possibly bfloat16-rounded) values
        final Map<String, float[]> weights = HfDecoderFixtureTest.readAll(checkpoint);
        final double[][] expected = new ReferenceDecoder(config, weights).logits(IDS);
        final double[][] withoutQkNorm = new ReferenceDecoder(config, weights, false).logits(IDS);
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(checkpoint, manager);
                NDManager step = manager.newSubManager()) {
            final float[] full = LogitChecks.full(model, step, IDS);
            final double fullDiff = LogitChecks.maxAbsDiff(full, expected);
            final double cachedDiff =
                    LogitChecks.maxAbsDiff(LogitChecks.incremental(model, step, IDS, 3), expected);
            final double qkNormEffect = LogitChecks.maxAbsDiff(full, withoutQkNorm);
            LOG.info(
                    "qwen3 untied={} bias={} {}: max |diff| {} in one pass, {} cached; skipping"
                            + " q_norm/k_norm would move logits by {}",
                    untied,
                    bias,
                    dtype,
                    fullDiff,
                    cachedDiff,
                    qkNormEffect);
            assertThat(fullDiff).isLessThan(1e-4);
            assertThat(cachedDiff).isLessThan(1e-4);
            assertThat(qkNormEffect).isGreaterThan(1e-2);
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    /** A random Qwen3 checkpoint: hidden 32, 4 heads of 16, 2 KV heads, 2 layers, vocab 50. */
    static Path writeCheckpoint(
            final Path dir,
            final boolean untied,
            final boolean bias,
            final DType dtype,
            final long seed)
            throws IOException {
        Files.writeString(
                dir.resolve(HfConfig.FILE),
                """
                {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                 "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
                 "hidden_act": "silu", "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                 "rope_scaling": null, "vocab_size": 50, "max_position_embeddings": 64,
                 "tie_word_embeddings": %s, "attention_bias": %s, "use_sliding_window": false,
                 "bos_token_id": null, "eos_token_id": [1, 2]}
                """
                        .formatted(!untied, bias));
        final HfConfig config = HfConfig.load(dir);
        final SplittableRandom random = new SplittableRandom(seed);
        final Map<String, Stored> tensors = new LinkedHashMap<>();
        for (final Map.Entry<String, long[]> e : config.tensorShapes().entrySet()) {
            final long[] shape = e.getValue();
            long n = 1;
            for (final long d : shape) {
                n *= d;
            }
            final float[] values = new float[(int) n];
            final boolean norm = e.getKey().endsWith("norm.weight");
            for (int i = 0; i < values.length; i++) {
                final double g = gaussian(random);
                // norms near 1 but far enough from it that a skipped q_norm/k_norm shows
                values[i] =
                        (float)
                                (norm
                                        ? 1 + 0.5 * g
                                        : (e.getKey().endsWith(".bias") ? 0.1 : 0.2) * g);
            }
            tensors.put(e.getKey(), new Stored(dtype, shape, values));
        }
        SafetensorsFiles.write(dir.resolve(MappedSafetensors.SINGLE_FILE), tensors);
        return dir;
    }

    private static double gaussian(final SplittableRandom random) {
        final double u1 = 1.0 - random.nextDouble();
        final double u2 = random.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }
}
