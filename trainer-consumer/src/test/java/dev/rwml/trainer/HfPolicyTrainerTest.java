package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.events.TrainingCounters;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.artifact.Artifacts;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfConfig;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfFixtures;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.HfTokenizer;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.prompt.SftTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GRPO on a Hugging Face version 0 (the tiny Qwen2 fixture): the trainer publishes the next version
 * in the same checkpoint format, and that version exported as a checkpoint directory reloads with
 * exactly the trained logits.
 */
class HfPolicyTrainerTest {

    private static final long[] IDS = {1, 17, 42, 99, 250, 381, 7, 3};

    @Test
    void shouldTrainAHuggingFaceVersionAndExportItWithTheSameLogits(@TempDir final Path tmp)
            throws Exception {
        final HfCheckpoint v0 = HfCheckpoint.fromDirectory(HfFixtures.checkpoint("qwen2-tiny"), 0);
        final VerifiedArtifact base = artifact(v0.toBytes());
        final TrainerConfig config =
                TrainerConfig.defaults("r").with(Map.of("learning.rate", "1e-3"));
        final byte[] v1;
        final float[] trained;
        try (PolicyTrainer trainer = WorldModelPolicyTrainer.factory().create(config, base, base)) {
            assertThat(trainer.artifactFormat()).isEqualTo(HfCheckpoint.FORMAT);
            assertThat(trainer.modelConfig())
                    .containsEntry("architecture", "Qwen2ForCausalLM")
                    .containsEntry("maxContext", "128");
            final List<RewardedGroup> groups =
                    List.of(
                            Groups.group("alfworld/e/0", 0, 4, 384),
                            Groups.group("alfworld/e/1", 0, 4, 384));
            final StepStats stats = trainer.step(groups);
            assertThat(stats.tokens()).isPositive();
            assertThat(Double.isFinite(stats.loss())).isTrue();
            v1 = trainer.checkpoint(1);
            trained = logits(((WorldModelPolicyTrainer) trainer).policy());
        }
        assertThat(ModelFormat.of(v1)).isEqualTo(ModelFormat.HF);
        final Path exported = HfCheckpoint.fromBytes(v1).writeTo(tmp.resolve("v1"));
        assertThat(Files.list(exported).map(p -> p.getFileName().toString()))
                .containsExactlyInAnyOrder(
                        "config.json",
                        "generation_config.json",
                        "model.safetensors",
                        "tokenizer.json",
                        "tokenizer_config.json");
        final float[] reloaded;
        final float[] original;
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder back = HfDecoder.load(exported, manager);
                HfDecoder zero = HfDecoder.load(HfFixtures.checkpoint("qwen2-tiny"), manager)) {
            reloaded = logits(back);
            original = logits(zero);
        }
        assertThat(reloaded).containsExactly(trained);
        assertThat(reloaded).isNotEqualTo(original);

        // the next trainer resumes from version 1 with its optimizer moments
        try (PolicyTrainer next =
                WorldModelPolicyTrainer.factory().create(config, base, artifact(v1, 1))) {
            assertThat(logits(((WorldModelPolicyTrainer) next).policy())).containsExactly(trained);
        }
    }

    /**
     * LoRA on a Hugging Face version 0: the trainer trains the adapter over the frozen base, a
     * version is the adapter alone (naming its base's SHA-256), the next trainer resumes from it,
     * and merged into the base it gives the trained logits.
     */
    @Test
    void shouldTrainALoraAdapterAndPublishItAlone() throws Exception {
        final HfCheckpoint v0 =
                HfCheckpoint.fromDirectory(HfFixtures.checkpoint("qwen2-tiny"), 0)
                        .withLora(LoraConfig.parse("r=4,alpha=8"));
        final VerifiedArtifact base = artifact(v0.toBytes());
        final TrainerConfig config =
                TrainerConfig.defaults("r").with(Map.of("learning.rate", "1e-2"));
        final byte[] v1;
        final float[] trained;
        final float[] original;
        try (PolicyTrainer trainer = WorldModelPolicyTrainer.factory().create(config, base, base)) {
            assertThat(trainer.artifactFormat()).isEqualTo(LoraCheckpoint.FORMAT);
            assertThat(trainer.modelConfig())
                    .containsEntry("architecture", "Qwen2ForCausalLM")
                    .containsEntry("lora", "r=4,alpha=8,dropout=0,targets=q+k+v+o+gate+up+down");
            original = logits(((WorldModelPolicyTrainer) trainer).policy());
            final List<RewardedGroup> groups =
                    List.of(
                            Groups.group("alfworld/e/0", 0, 4, 384),
                            Groups.group("alfworld/e/1", 0, 4, 384));
            for (int i = 0; i < 3; i++) {
                assertThat(Double.isFinite(trainer.step(groups).loss())).isTrue();
            }
            v1 = trainer.checkpoint(1);
            trained = logits(((WorldModelPolicyTrainer) trainer).policy());
        }
        assertThat(trained).isNotEqualTo(original);
        final LoraCheckpoint adapter = LoraCheckpoint.fromBytes(v1);
        assertThat(adapter.baseSha256()).isEqualTo(base.manifest().getArtifact().getSha256());
        assertThat(adapter.optimizerState()).isNotEmpty();
        assertThat(v1.length).isLessThan(v0.toBytes().length / 2);

        final float[] merged;
        try (NDManager manager = DjlRuntime.newManager();
                HfModel model = HfModel.open(adapter.mergedInto(v0), manager)) {
            merged = logits(model.decoder());
        }
        for (int i = 0; i < trained.length; i++) {
            assertThat(merged[i]).isCloseTo(trained[i], offset(1e-4f));
        }
        try (PolicyTrainer next =
                WorldModelPolicyTrainer.factory().create(config, base, artifact(v1, 1))) {
            assertThat(logits(((WorldModelPolicyTrainer) next).policy())).containsExactly(trained);
        }
    }

    /**
     * WM-SFT of a Hugging Face version: the target is the shared SFT target of the observed next
     * state, ended by the checkpoint's end of turn, and repeated steps on the same group lower its
     * loss.
     */
    @Test
    void shouldTrainAHuggingFaceVersionWithSftOnTheObservedNextState() throws Exception {
        final VerifiedArtifact base =
                artifact(
                        HfCheckpoint.fromDirectory(HfFixtures.checkpoint("qwen2-tiny"), 0)
                                .toBytes());
        final TrainerConfig sft =
                TrainerConfig.defaults("r")
                        .with(Map.of("objective", "sft", "learning.rate", "3e-3"));
        try (PolicyTrainer trainer = WorldModelPolicyTrainer.factory().create(sft, base, base);
                HfTokenizer tokenizer =
                        HfTokenizer.load(
                                HfFixtures.checkpoint("qwen2-tiny"),
                                HfConfig.load(HfFixtures.checkpoint("qwen2-tiny")))) {
            final RewardedGroup group = Groups.group("alfworld/e/0", 0, 4, 384);
            assertThat(trainer.unfit(group)).isEmpty();
            final int[] target = SftTarget.ids(tokenizer, group.getObservedNextState());
            assertThat(target[target.length - 1]).isEqualTo(tokenizer.endId());
            assertThat(tokenizer.isEnd(target[target.length - 1])).isTrue();
            final StepStats first = trainer.step(List.of(group));
            StepStats last = first;
            for (int i = 0; i < 5; i++) {
                last = trainer.step(List.of(group));
            }
            assertThat(first.tokens()).isEqualTo(target.length);
            assertThat(last.loss()).isLessThan(first.loss());
        }
    }

    private static float[] logits(final CausalLM model) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager step = DjlRuntime.newManager()) {
            final long[] pos = new long[IDS.length];
            for (int i = 0; i < pos.length; i++) {
                pos[i] = i;
            }
            return model.forward(
                            step.create(IDS, new Shape(1, IDS.length)),
                            step.create(pos, new Shape(1, IDS.length)),
                            dev.rwml.worldmodel.model.Masks.causal(step, IDS.length),
                            null)
                    .toFloatArray();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    /**
     * A group from another program with a token id past the vocabulary, or a sample longer than the
     * context, would fail every step it is in (and again after each restart): the trainer names it
     * unfit, so the loop dead-letters it as it reads it.
     */
    @Test
    void shouldCallGroupsOutsideTheVocabularyOrContextUnfit() throws Exception {
        final VerifiedArtifact base =
                artifact(
                        HfCheckpoint.fromDirectory(HfFixtures.checkpoint("qwen2-tiny"), 0)
                                .toBytes());
        try (PolicyTrainer trainer =
                WorldModelPolicyTrainer.factory().create(TrainerConfig.defaults("r"), base, base)) {
            final RewardedGroup good = Groups.group("alfworld/e/0", 0, 4, 384);
            assertThat(trainer.unfit(good)).isEmpty();

            final RewardedGroup outside = RewardedGroup.newBuilder(good).build();
            outside.getSamples()
                    .set(
                            1,
                            RewardedSample.newBuilder(outside.getSamples().get(1))
                                    .setTokenIds(List.of(5, 384, 7))
                                    .build());
            assertThat(trainer.unfit(outside))
                    .hasValue(
                            "sample 1 of group alfworld/e/0 has token id 384 at position 1,"
                                    + " outside the vocabulary of 384");
            assertThatThrownBy(() -> trainer.step(List.of(outside)))
                    .as("what the check prevents")
                    .isInstanceOf(RuntimeException.class);

            final List<Integer> longPrompt = new java.util.ArrayList<>();
            for (int i = 0; i < 127; i++) {
                longPrompt.add(1 + i % 300);
            }
            final RewardedGroup tooLong =
                    RewardedGroup.newBuilder(good).setPromptTokenIds(longPrompt).build();
            assertThat(trainer.unfit(tooLong))
                    .hasValue(
                            "sample 0 of group alfworld/e/0 has 130 prompt and completion tokens,"
                                    + " more than the model's context of 128");
        }
    }

    private static VerifiedArtifact artifact(final byte[] bytes) throws Exception {
        return artifact(bytes, 0);
    }

    private static VerifiedArtifact artifact(final byte[] bytes, final long version)
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
                                        .setFormat(HfCheckpoint.FORMAT)
                                        .setSizeBytes(bytes.length)
                                        .setSha256(Artifacts.sha256Hex(bytes))
                                        .setChunkCount(1)
                                        .build())
                        .build();
        return VerifiedArtifact.verify(manifest, bytes);
    }
}
