package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import ai.djl.ndarray.NDManager;
import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.TrainingCounters;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.Artifacts;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * LoRA versions served as the prediction stage serves them: the base (version 0) is fetched and
 * loaded once, each adapter version is applied to it, closing an old version leaves the base for
 * the next, and an adapter of another base is refused.
 */
class LoraServingTest {

    private static final LoraConfig LORA = LoraConfig.parse("r=4,alpha=8");
    private static final int[] PROMPT = {1, 17, 42, 99, 250, 7, 3};
    private static final SamplingSettings SAMPLING = new SamplingSettings(4, 1f, 1f, 8);

    @Test
    void shouldFetchTheBaseOnceAndApplyEachAdapterVersionToIt() throws Exception {
        final VerifiedArtifact v0 = base();
        final String baseSha = v0.manifest().getArtifact().getSha256();
        final VerifiedArtifact v1 = artifact(1, adapter(1, baseSha, 11).toBytes());
        final VerifiedArtifact v2 = artifact(2, adapter(2, baseSha, 12).toBytes());
        final List<Long> fetched = new ArrayList<>();
        final ArtifactSource versions =
                version -> {
                    fetched.add(version);
                    assertThat(version).isZero();
                    return v0;
                };
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard()) {
            final List<Sample> fromV1;
            try (PredictionModel one = loader.load(v1, versions)) {
                assertThat(one.version()).isEqualTo(1);
                fromV1 = one.sample(List.of(PROMPT), SAMPLING, 5L).get(0);
            }
            try (PredictionModel two = loader.load(v2, versions);
                    PredictionModel zero = loader.load(v0, versions)) {
                final List<Sample> fromV2 = two.sample(List.of(PROMPT), SAMPLING, 5L).get(0);
                final List<Sample> fromV0 = zero.sample(List.of(PROMPT), SAMPLING, 5L).get(0);
                assertThat(logProbs(fromV2)).isNotEqualTo(logProbs(fromV1));
                assertThat(logProbs(fromV0)).isNotEqualTo(logProbs(fromV2));
            }
            // version 1 again, after the others were closed: the shared base is still there
            try (PredictionModel again = loader.load(v1, versions)) {
                assertThat(logProbs(again.sample(List.of(PROMPT), SAMPLING, 5L).get(0)))
                        .isEqualTo(logProbs(fromV1));
            }
            assertThat(fetched).as("the base is fetched once").containsExactly(0L);
        }
    }

    @Test
    void shouldServeTheSameModelTheAdapterWasTrainedAs() throws Exception {
        final VerifiedArtifact v0 = base();
        final LoraCheckpoint lora = adapter(1, v0.manifest().getArtifact().getSha256(), 21);
        final float[] trained;
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder base = HfDecoder.load(HfFixtures.checkpoint("qwen2-tiny"), manager);
                HfDecoder view =
                        base.withAdapter(
                                LoraAdapter.fromTensors(
                                        base.config(), LORA, lora.weights(), manager))) {
            trained = LoraTest.logits(view);
            final HfCheckpoint merged = lora.mergedInto(HfCheckpoint.fromBytes(v0.bytes()));
            try (HfModel exported = HfModel.open(merged, manager)) {
                final float[] reloaded = LoraTest.logits(exported.decoder());
                for (int i = 0; i < trained.length; i++) {
                    assertThat(reloaded[i]).isCloseTo(trained[i], offset(1e-4f));
                }
            }
        }
    }

    @Test
    void shouldRefuseAnAdapterOfAnotherBase() throws Exception {
        final VerifiedArtifact v0 = base();
        final VerifiedArtifact foreign = artifact(1, adapter(1, "0".repeat(64), 3).toBytes());
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard()) {
            assertThatThrownBy(() -> loader.load(foreign, version -> v0))
                    .hasMessageContaining("was trained on a base with SHA-256 " + "0".repeat(64))
                    .hasMessageContaining("the adapter belongs to another run");
            assertThatThrownBy(
                            () ->
                                    loader.load(
                                            foreign,
                                            version -> {
                                                throw new ArtifactRejectedException(
                                                        "r", version, "no committed manifest");
                                            }))
                    .hasMessageContaining("adapter version 1 needs its base, version 0");
        }
    }

    /** Version 0: the Qwen2 fixture initialised for LoRA. */
    private static VerifiedArtifact base() throws Exception {
        return artifact(
                0,
                HfCheckpoint.fromDirectory(HfFixtures.checkpoint("qwen2-tiny"), 0)
                        .withLora(LORA)
                        .toBytes());
    }

    /** An adapter as training leaves one: random A, and B no longer zero. */
    private static LoraCheckpoint adapter(
            final long version, final String baseSha, final long seed) {
        final Map<String, Tensor> tensors;
        try (NDManager manager = DjlRuntime.newManager();
                LoraAdapter fresh =
                        LoraAdapter.create(
                                HfConfig.load(HfFixtures.checkpoint("qwen2-tiny")),
                                LORA,
                                seed,
                                manager)) {
            tensors = new LinkedHashMap<>(fresh.toTensors());
        }
        final Random random = new Random(seed);
        tensors.replaceAll(
                (name, t) -> {
                    final float[] data = t.data().clone();
                    if (name.endsWith("lora_B.weight")) {
                        for (int i = 0; i < data.length; i++) {
                            data[i] = (float) random.nextGaussian() * 0.1f;
                        }
                    }
                    return new Tensor(t.shape(), data);
                });
        return new LoraCheckpoint(version, 0, baseSha, LORA, tensors, Map.of());
    }

    /** Each sample's tokens and log-probs, comparable by value. */
    private static List<String> logProbs(final List<Sample> samples) {
        final List<String> out = new ArrayList<>();
        samples.forEach(
                s -> out.add(Arrays.toString(s.tokenIds()) + Arrays.toString(s.logProbs())));
        return out;
    }

    private static VerifiedArtifact artifact(final long version, final byte[] bytes)
            throws Exception {
        final ModelVersion manifest =
                ModelVersion.newBuilder()
                        .setRun("r")
                        .setVersion(version)
                        .setCreatedAt(Instant.now())
                        .setObjective(version == 0 ? "init" : "grpo")
                        .setCounters(TrainingCounters.newBuilder().build())
                        .setArtifact(
                                ArtifactRef.newBuilder()
                                        .setFormat(
                                                version == 0
                                                        ? HfCheckpoint.FORMAT
                                                        : LoraCheckpoint.FORMAT)
                                        .setSizeBytes(bytes.length)
                                        .setSha256(Artifacts.sha256Hex(bytes))
                                        .setChunkCount(1)
                                        .build())
                        .build();
        return VerifiedArtifact.verify(manifest, bytes);
    }
}
