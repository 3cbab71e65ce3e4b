package dev.rwml.worldmodel.train;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.SequenceBatch;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrainerTest {

    private static final TrainConfig CONFIG =
            new TrainConfig(
                    1e-2, 0.01, 0.9, 0.95, 1e-8, 1.0, 0, 0, TrainConfig.Schedule.CONSTANT, 1.0);

    @Test
    void shouldLowerSftLossOnASmallCorpusAndKeepLoweringItAfterReload() {
        final List<SequenceBatch.Pair> examples;
        final Checkpoint saved;
        final double lossBeforeSave;
        final float[] logitsBefore;
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 1);
                Trainer trainer = model.trainer(CONFIG, null, null)) {
            examples = Fixtures.examples(model, 4);
            final double first = trainer.sftStep(examples).loss();
            double last = first;
            // a few steps suffice to show the fall; more only slow the suite
            for (int i = 0; i < 7; i++) {
                last = trainer.sftStep(examples).loss();
            }
            assertThat(last).isLessThan(first * 0.8);
            lossBeforeSave = last;
            saved = model.checkpoint(3, trainer);
            logitsBefore = model.scorer().score(examples.subList(0, 2)).get(1);
        }

        final Checkpoint.Artifact artifact = saved.toArtifact();
        assertThat(saved.toArtifact().sha256()).isEqualTo(artifact.sha256());
        final Checkpoint loaded = artifact.open();
        assertThat(loaded.version()).isEqualTo(3);
        assertThat(loaded.optimizerState()).containsKey("step");
        try (WorldModel model = WorldModel.load(loaded);
                Trainer trainer = model.trainer(CONFIG, null, loaded.optimizerState())) {
            assertThat(model.scorer().score(examples.subList(0, 2)).get(1))
                    .containsExactly(logitsBefore);
            assertThat(trainer.optimizer().steps()).isEqualTo(8);
            double last = Double.MAX_VALUE;
            for (int i = 0; i < 2; i++) {
                last = trainer.sftStep(examples).loss();
            }
            assertThat(last).isLessThan(lossBeforeSave);
        }
    }

    @Test
    void shouldSkipAnUpdateWhoseGradientOverflowsAndKeepTrainingFromIntactWeights() {
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 1);
                Trainer trainer = model.trainer(CONFIG, null, null)) {
            final List<SequenceBatch.Pair> examples = Fixtures.examples(model, 4);
            final NDArray gain = model.model().parameters().get("ln_f.weight");
            final float[] healthy = gain.toFloatArray();
            // A final-norm gain near float's limit overflows the logits and every gradient.
            gain.set(new NDIndex("..."), 3e38f);
            final float[] overflowing = gain.toFloatArray();

            final StepMetrics overflowed = trainer.sftStep(examples);

            assertThat(overflowed.gradNorm()).isNaN();
            assertThat(overflowed.skipped())
                    .as("a skipped step says where the overflow is")
                    .contains("first non-finite gradient: ")
                    .doesNotContain("first non-finite gradient: none")
                    .contains("largest |logit| ");
            assertThat(gain.toFloatArray())
                    .as("the update was skipped")
                    .containsExactly(overflowing);
            gain.set(new NDIndex("..."), 1f);
            assertThat(gain.toFloatArray()).containsExactly(healthy);
            final StepMetrics next = trainer.sftStep(examples);
            assertThat(next.gradNorm()).as("no NaN left in the gradients").isFinite();
            assertThat(next.wasSkipped()).isFalse();
            assertThat(next.loss()).isFinite();
            for (final NDArray p : model.model().parameters().values()) {
                for (final float v : p.toFloatArray()) {
                    assertThat(v).isFinite();
                }
            }
        }
    }

    @Test
    void shouldFollowWarmupThenCosineSchedule() {
        final TrainConfig c =
                new TrainConfig(
                        1.0, 0, 0.9, 0.95, 1e-8, 1, 4, 14, TrainConfig.Schedule.COSINE, 0.1);
        assertThat(c.learningRateAt(0)).isEqualTo(0.2);
        assertThat(c.learningRateAt(4)).isEqualTo(1.0);
        assertThat(c.learningRateAt(9))
                .isCloseTo(0.55, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(c.learningRateAt(100))
                .isCloseTo(0.1, org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void shouldRejectCheckpointWhoseDigestDoesNotMatch() {
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 1)) {
            final Checkpoint.Artifact artifact = model.checkpoint(1, null).toArtifact();
            final byte[] corrupt = artifact.bytes().clone();
            corrupt[corrupt.length / 2] ^= 1;
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> new Checkpoint.Artifact(corrupt, artifact.sha256()).open())
                    .hasMessageContaining("SHA-256 mismatch");
        }
    }
}
