package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.checkpoint.SafeTensors;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.GrpoSample;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * LoRA on the Hugging Face decoder: a fresh adapter changes nothing, a trained one merges into
 * weights that reproduce it, training moves the adapter alone, and the adapter artifact round-trips
 * with its base's identity.
 */
class LoraTest {

    private static final long[] IDS = {1, 17, 42, 99, 250, 381, 7, 3, 64, 128};

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldStartEqualToTheBaseAndMergeIntoWeightsWithTheAdaptedLogits(
            final String fixture, @TempDir final Path tmp) {
        final Path dir = HfFixtures.checkpoint(fixture);
        final LoraConfig lora = LoraConfig.parse("r=4,alpha=8");
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder base = HfDecoder.load(dir, manager)) {
            final float[] baseLogits = logits(base);
            try (HfDecoder fresh =
                    base.withAdapter(LoraAdapter.create(base.config(), lora, 7, manager))) {
                assertThat(logits(fresh)).containsExactly(baseLogits);
            }
            // an adapter with B non-zero, as after training
            final Map<String, Tensor> tensors;
            try (LoraAdapter created = LoraAdapter.create(base.config(), lora, 7, manager)) {
                tensors = new LinkedHashMap<>(created.toTensors());
            }
            final Random random = new Random(3);
            tensors.replaceAll(
                    (name, t) -> {
                        if (!name.endsWith("lora_B.weight")) {
                            return t;
                        }
                        final float[] data = new float[t.data().length];
                        for (int i = 0; i < data.length; i++) {
                            data[i] = (float) random.nextGaussian() * 0.05f;
                        }
                        return new Tensor(t.shape(), data);
                    });
            final float[] adapted;
            final Map<String, Tensor> merged;
            try (HfDecoder view =
                    base.withAdapter(
                            LoraAdapter.fromTensors(base.config(), lora, tensors, manager))) {
                adapted = logits(view);
                merged = view.toTensors();
            }
            assertThat(maxAbsDiff(adapted, baseLogits)).isGreaterThan(1e-2);
            assertThat(logits(base)).as("the base is untouched").containsExactly(baseLogits);

            final Path out =
                    HfCheckpoint.fromDirectory(dir, 0)
                            .withWeights(1, merged, Map.of())
                            .writeTo(tmp.resolve("merged"));
            try (HfDecoder reloaded = HfDecoder.load(out, manager)) {
                assertThat(maxAbsDiff(logits(reloaded), adapted)).isLessThan(1e-4);
            }
        }
    }

    @Test
    void shouldTrainTheAdapterAloneWithTheBaseAsTheKlReference() {
        final Path dir = HfFixtures.checkpoint("qwen2-tiny");
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder base = HfDecoder.load(dir, manager);
                HfDecoder policy =
                        base.withAdapter(
                                LoraAdapter.create(
                                        base.config(), LoraConfig.parse("r=2"), 1, manager))) {
            final float[] baseLogits = logits(base);
            final Map<String, float[]> baseWeights = new HashMap<>();
            base.parameters().forEach((n, p) -> baseWeights.put(n, p.toFloatArray()));
            assertThat(policy.parameters().keySet())
                    .allMatch(n -> n.startsWith("base_model.model.model.layers."))
                    .hasSize(2 * 7 * base.config().layers());

            try (Trainer trainer = new Trainer(policy, base, TrainConfig.grpo(1e-2), 0)) {
                final int[] prompt = {3, 17, 9, 44, 5};
                final List<GrpoSample> samples =
                        List.of(
                                new GrpoSample(
                                        prompt, new int[] {4, 2, 8}, new float[] {-6, -6, -6}, 1),
                                new GrpoSample(prompt, new int[] {6, 1}, new float[] {-6, -6}, -1));
                for (int i = 0; i < 3; i++) {
                    assertThat(Double.isFinite(trainer.grpoStep(samples, GrpoConfig.grpo()).loss()))
                            .isTrue();
                }
                assertThat(trainer.optimizerState().keySet())
                        .anyMatch(n -> n.contains("lora_B.weight"));
            }
            base.parameters()
                    .forEach(
                            (n, p) ->
                                    assertThat(p.toFloatArray())
                                            .as("frozen base weight %s", n)
                                            .containsExactly(baseWeights.get(n)));
            assertThat(logits(base)).containsExactly(baseLogits);
            assertThat(maxAbsDiff(logits(policy), baseLogits)).isGreaterThan(1e-4);
            final NDArray b =
                    policy.parameters()
                            .get("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight");
            assertThat(b.abs().max().getFloat()).isPositive();
        }
    }

    @Test
    void shouldRoundTripTheAdapterArtifactAndRefuseOneThatDoesNotFit() {
        final Path dir = HfFixtures.checkpoint("llama-tiny");
        final LoraConfig lora = LoraConfig.parse("r=3,alpha=6,dropout=0.1,targets=q+v+down");
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder base = HfDecoder.load(dir, manager);
                LoraAdapter adapter = LoraAdapter.create(base.config(), lora, 5, manager)) {
            final LoraCheckpoint checkpoint =
                    new LoraCheckpoint(4, 0, "ab".repeat(32), lora, adapter.toTensors(), Map.of());
            final byte[] bytes = checkpoint.toBytes();
            assertThat(bytes).isEqualTo(checkpoint.toBytes());
            assertThat(ModelFormat.of(bytes)).isEqualTo(ModelFormat.LORA);
            final LoraCheckpoint back = LoraCheckpoint.fromBytes(bytes);
            assertThat(back.version()).isEqualTo(4);
            assertThat(back.baseSha256()).isEqualTo("ab".repeat(32));
            assertThat(back.config()).isEqualTo(lora);
            assertThat(back.weights().keySet()).hasSize(3 * 2 * base.config().layers());

            final Map<String, Tensor> wrong = new LinkedHashMap<>(back.weights());
            final String name = "base_model.model.model.layers.1.mlp.down_proj.lora_A.weight";
            wrong.put(name, new Tensor(new long[] {3, 2}, new float[6]));
            wrong.remove("base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight");
            assertThatThrownBy(() -> LoraAdapter.fromTensors(base.config(), lora, wrong, manager))
                    .hasMessageContaining(name + " has shape [3, 2], expected [3, ")
                    .hasMessageContaining(
                            "missing base_model.model.model.layers.0.self_attn.v_proj.lora_B");
        }
        // PEFT's adapter_config.json carries the settings
        assertThat(lora.toAdapterConfig("b").path("target_modules").toString())
                .isEqualTo("[\"q_proj\",\"v_proj\",\"down_proj\"]");
        assertThat(LoraConfig.fromAdapterConfig(lora.toAdapterConfig("b"))).isEqualTo(lora);
        assertThat(
                        HfCheckpoint.fromBytes(
                                        HfCheckpoint.fromDirectory(dir, 0).withLora(lora).toBytes())
                                .lora())
                .isEqualTo(Optional.of(lora));
    }

    @Test
    void shouldWriteThePeftDirectoryAnInferenceServerLoads(@TempDir final Path tmp)
            throws Exception {
        final LoraConfig lora = LoraConfig.parse("r=2,alpha=4,targets=q+v");
        final Map<String, Tensor> weights = new LinkedHashMap<>();
        weights.put(
                "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight",
                new Tensor(new long[] {2, 3}, new float[] {1, 2, 3, 4, 5, 6}));
        weights.put(
                "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight",
                new Tensor(new long[] {3, 2}, new float[] {-1, -2, -3, -4, -5, -6}));
        final LoraCheckpoint checkpoint =
                new LoraCheckpoint(7, 0, "cd".repeat(32), lora, weights, Map.of());
        final Path dir = tmp.resolve("run-v7");

        checkpoint.writePeftDirectory(dir);
        checkpoint.writePeftDirectory(dir);

        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            LoraCheckpoint.CONFIG_FILE, LoraCheckpoint.WEIGHTS_FILE);
        }
        final var config =
                new ObjectMapper().readTree(dir.resolve(LoraCheckpoint.CONFIG_FILE).toFile());
        assertThat(config.path("peft_type").asText()).isEqualTo("LORA");
        assertThat(LoraConfig.fromAdapterConfig(config)).isEqualTo(lora);
        final Map<String, Tensor> back =
                SafeTensors.read(Files.readAllBytes(dir.resolve(LoraCheckpoint.WEIGHTS_FILE)))
                        .tensors();
        assertThat(back.keySet()).isEqualTo(weights.keySet());
        assertThat(
                        back.get("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight")
                                .data())
                .containsExactly(-1, -2, -3, -4, -5, -6);
    }

    @Test
    void shouldParseTheCommandLineSpecWithDefaultsAndClearErrors() {
        assertThat(LoraConfig.parse("")).isEqualTo(new LoraConfig(16, 32, 0, LoraConfig.MODULES));
        assertThat(LoraConfig.parse("r=8").alpha()).isEqualTo(16);
        assertThat(LoraConfig.parse("r=8,alpha=8,targets=q_proj+gate").targets())
                .containsExactly("q_proj", "gate_proj");
        assertThat(LoraConfig.parse("r=8,alpha=8,targets=q+gate").toString())
                .isEqualTo("r=8,alpha=8,dropout=0,targets=q+gate");
        assertThatThrownBy(() -> LoraConfig.parse("rank=0"))
                .hasMessage("LoRA rank must be at least 1, got 0");
        assertThatThrownBy(() -> LoraConfig.parse("r=4,targets=q+attn"))
                .hasMessageContaining("unknown LoRA target 'attn_proj'");
        assertThatThrownBy(() -> LoraConfig.parse("r=4,beta=2"))
                .hasMessageContaining("unknown LoRA setting 'beta'");
        assertThatThrownBy(() -> LoraConfig.parse("r=four")).hasMessageContaining("not a number");
    }

    static float[] logits(final CausalLM model) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager step = DjlRuntime.newManager()) {
            final long[] pos = new long[IDS.length];
            for (int i = 0; i < pos.length; i++) {
                pos[i] = i;
            }
            return model.forward(
                            step.create(IDS, new Shape(1, IDS.length)),
                            step.create(pos, new Shape(1, IDS.length)),
                            Masks.causal(step, IDS.length),
                            null)
                    .toFloatArray();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    private static double maxAbsDiff(final float[] a, final float[] b) {
        double max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs(a[i] - b[i]));
        }
        return max;
    }
}
