package dev.rwml.worldmodel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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

    @Test
    void shouldRebuildEachStepsMemoryOfItsEpisodeFromTheSlice() {
        final List<Transition> episode = new ArrayList<>();
        for (int step = 0; step < 5; step++) {
            final List<Turn> carried = new ArrayList<>();
            for (int k = Math.max(0, step - 2); k < step; k++) {
                carried.add(new Turn("act " + k, "obs " + k));
            }
            episode.add(
                    TestCorpus.transition(
                            "alfworld",
                            "e1",
                            step,
                            "task",
                            carried,
                            "obs " + step,
                            "act " + step,
                            "obs " + (step + 1),
                            NextStateKind.TEXT));
        }
        // Shuffled, as a slice read from several partitions is; one step of a second episode
        // without its earlier steps.
        final List<Transition> slice = new ArrayList<>(episode);
        Collections.reverse(slice);
        final Transition orphan =
                TestCorpus.transition(
                        "alfworld",
                        "e2",
                        3,
                        "task",
                        List.of(new Turn("act 2", "obs 2")),
                        "obs 3",
                        "act 3",
                        "obs 4",
                        NextStateKind.TEXT);
        slice.add(orphan);

        final Map<String, List<PromptView.HistoryTurn>> memory =
                BaseModelTrainer.episodeMemory(slice);

        assertThat(memory.get("alfworld/e1/0")).isEmpty();
        assertThat(memory.get("alfworld/e1/4"))
                .extracting(PromptView.HistoryTurn::action)
                .containsExactly("act 0", "act 1", "act 2", "act 3");
        assertThat(memory.get("alfworld/e1/4"))
                .extracting(PromptView.HistoryTurn::observation)
                .containsExactly("obs 0", "obs 1", "obs 2", "obs 3");
        assertThat(memory.get("alfworld/e2/3"))
                .as("steps missing from the slice: the turns the transition carries")
                .containsExactly(new PromptView.HistoryTurn("act 2", "obs 2"));
    }
}
