package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDManager;
import dev.rwml.channel.init.HfModelInit;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Transition;
import dev.rwml.worldmodel.BaseModelTrainer;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.TestCorpus;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfFixtures;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.train.TrainConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * For the same transition, the base model's init, {@code model init --from-hf --steps} and the
 * trainer's WM-SFT train on identical token ids: the init's pair and the pair the trainer builds
 * from the prompt the prediction stage sampled from.
 */
class SftPairParityTest {

    /** The prediction stage's and {@code model init --steps}'s default prompt.max.tokens. */
    private static final int PROMPT_MAX_TOKENS = 512;

    private static final TrainerConfig WM_SFT =
            TrainerConfig.defaults("r").with(Map.of("objective", "sft"));

    @Test
    void shouldTrainWmSftOnTheBaseInitsPairsOfTheSmallModel() throws Exception {
        final List<Transition> slice = transitions();
        final BaseModelTrainer.Settings settings =
                new BaseModelTrainer.Settings(
                        new ModelConfig(320, 32, 1, 2, 64, 1024, true),
                        320,
                        1,
                        4,
                        1,
                        TrainConfig.sft(1),
                        PromptFormat.DEFAULT_HISTORY_TURNS,
                        false);
        final Checkpoint v0 =
                new BaseModelTrainer().train(slice, settings, (m, total) -> {}).checkpoint();
        final byte[] bytes = v0.toBytes();
        try (WorldModelPolicyTrainer trainer = wmSft(bytes);
                WorldModel model = WorldModel.load(v0);
                CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel served = loader.fromCheckpoint(0, v0)) {
            for (final Transition t : slice) {
                final SequenceBatch.Pair init =
                        BaseModelTrainer.pair(
                                        new PromptFormat(settings.historyTurns()),
                                        model.tokenizer(),
                                        t,
                                        model.config().maxContext())
                                .orElseThrow();
                assertSamePair(t, init, trainer, served);
            }
        }
    }

    @Test
    void shouldTrainWmSftOnTheHfInitsPairsOfAHuggingFaceCheckpoint(@TempDir final Path tmp)
            throws Exception {
        final Path dir = HfFixtures.chatCheckpoint(tmp.resolve("qwen2-chat"));
        final byte[] bytes = HfCheckpoint.fromDirectory(dir, 0).toBytes();
        try (WorldModelPolicyTrainer trainer = wmSft(bytes);
                NDManager manager = DjlRuntime.newManager();
                HfModel model = HfModel.load(dir, manager);
                CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel served = loader.fromHf(0, HfCheckpoint.fromBytes(bytes))) {
            for (final Transition t : transitions()) {
                final SequenceBatch.Pair init =
                        HfModelInit.pair(model, t, PROMPT_MAX_TOKENS).orElseThrow();
                assertSamePair(t, init, trainer, served);
            }
        }
    }

    /** Household transitions and a retail tool call (the dialogue instruction). */
    private static List<Transition> transitions() {
        final List<Transition> out = new ArrayList<>(TestCorpus.alfworld(4));
        out.add(TestCorpus.retailToolCall());
        return out;
    }

    private static WorldModelPolicyTrainer wmSft(final byte[] versionZero)
            throws ArtifactRejectedException {
        return (WorldModelPolicyTrainer)
                WorldModelPolicyTrainer.factory()
                        .create(
                                WM_SFT,
                                TrainerFixture.versionZero(versionZero),
                                TrainerFixture.versionZero(versionZero));
    }

    /**
     * The init's pair equals the trainer's for the group the prediction stage would send: its
     * prompt, the observed next state.
     */
    private static void assertSamePair(
            final Transition t,
            final SequenceBatch.Pair init,
            final WorldModelPolicyTrainer trainer,
            final PredictionModel served) {
        final int[] sampledFrom = served.prompt(t, PROMPT_MAX_TOKENS).tokenIds();
        final RewardedGroup group =
                RewardedGroup.newBuilder(Groups.group(t.getTransitionId(), 0, 4, 300))
                        .setPromptTokenIds(boxed(sampledFrom))
                        .setObservedNextState(t.getNextObservation())
                        .build();
        final SequenceBatch.Pair wmSft = trainer.sftPairs(List.of(group)).get(0);
        assertThat(wmSft.prompt()).as("prompt of %s", t.getTransitionId()).isEqualTo(init.prompt());
        assertThat(wmSft.completion())
                .as("target of %s", t.getTransitionId())
                .isEqualTo(init.completion());
    }

    private static List<Integer> boxed(final int[] ids) {
        final List<Integer> out = new ArrayList<>(ids.length);
        for (final int id : ids) {
            out.add(id);
        }
        return out;
    }
}
