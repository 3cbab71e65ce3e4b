package dev.rwml.worldmodel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaseModelTrainerTest {

    @Test
    void shouldTrainTokenizerAndBaseModelWithProgressAndReturnALoadableCheckpoint() {
        final List<StepMetrics> seen = new ArrayList<>();
        final BaseModelTrainer.Settings settings =
                new BaseModelTrainer.Settings(
                        ModelConfig.tiny(320),
                        320,
                        6,
                        4,
                        1,
                        TrainConfig.sft(6),
                        PromptFormat.DEFAULT_HISTORY_TURNS,
                        false);
        final BaseModelTrainer.Result result =
                new BaseModelTrainer()
                        .train(TestCorpus.alfworld(12), settings, (m, total) -> seen.add(m));
        assertThat(seen).hasSize(6);
        assertThat(result.examples()).isEqualTo(12);
        assertThat(seen.get(5).loss()).isLessThan(seen.get(0).loss());
        final Checkpoint checkpoint = result.checkpoint().toArtifact().open();
        assertThat(checkpoint.version()).isZero();
        try (WorldModel model = WorldModel.load(checkpoint)) {
            assertThat(model.tokenizer().vocabSize()).isLessThanOrEqualTo(320);
            assertThat(model.config().dModel()).isEqualTo(32);
        }
    }
}
