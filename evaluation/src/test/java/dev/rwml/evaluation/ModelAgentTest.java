package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.channel.ModelSlot;
import dev.rwml.env.EnvKind;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.events.Transition;
import dev.rwml.worldmodel.BaseModelTrainer;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The agent whose policy is the run's model, with a real small model and with scripted answers. */
class ModelAgentTest {

    private static final EnvironmentSource TRAIN =
            EnvKind.ALFWORLD.source("train", Grammar.CURRENT);
    private static final EpisodeRunner RUNNER =
            EpisodeRunner.withClock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    /** Ten steps of an episode are enough to see the agent act, and quicker than its 50. */
    private static final EpisodeRunner TEN_STEPS =
            new EpisodeRunner(2, 10, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    private static final SamplingSettings GREEDY = new SamplingSettings(1, 0f, 1f, 16);

    @Test
    void shouldActWithASmallModelThatLearnedToActAndNameItsVersionOnEveryStep() {
        final List<Transition> slice = new ArrayList<>();
        for (int n = 0; n < 8; n++) {
            slice.addAll(RUNNER.run(TRAIN, new EpsilonExpertAgent(0.1, 0.1), "a", 1, n));
        }
        final BaseModelTrainer.Result trained =
                new BaseModelTrainer()
                        .train(
                                slice,
                                BaseModelTrainer.Settings.of("tiny", 250, 1).withActing(true),
                                (m, total) -> {});
        assertThat(trained.examples() + trained.skipped()).isEqualTo(2 * slice.size());
        try (ModelSlot slot = new ModelSlot()) {
            slot.install(predictor(3, trained.checkpoint()));
            final List<Transition> episode =
                    TEN_STEPS.run(TRAIN, new ModelAgent(slot, GREEDY, 512), "agent-0", 1, 0);
            assertThat(episode).hasSize(10);
            assertThat(episode)
                    .allSatisfy(
                            t -> {
                                assertThat(t.getPolicy().getName()).isEqualTo(ModelAgent.NAME);
                                assertThat(t.getPolicy().getModelVersion()).isEqualTo(3L);
                            });
            final long readable =
                    episode.stream()
                            .filter(t -> !t.getMetadata().containsKey(EpisodeRunner.INVALID_ANSWER))
                            .count();
            assertThat(readable)
                    .as("steps whose answer held an action, of %d", episode.size())
                    .isGreaterThan(episode.size() / 2);
        }
    }

    @Test
    void shouldRecordAnAnswerWithoutAnActionAsAnInvalidStepWithItsReason() {
        try (ModelSlot slot = new ModelSlot()) {
            slot.install(
                    new Answers(
                            5,
                            "<think></think><next_state>Nothing happens.</next_state>",
                            Sample.StopReason.NEXT_STATE_CLOSED));
            final List<Transition> episode =
                    RUNNER.run(TRAIN, new ModelAgent(slot, GREEDY, 4096), "agent-0", 1, 0);
            final Transition first = episode.get(0);
            assertThat(first.getActionValid()).isFalse();
            assertThat(first.getMetadata())
                    .containsEntry(
                            EpisodeRunner.INVALID_ANSWER,
                            "the answer is a next-state prediction, not an action");
            assertThat(first.getAction())
                    .isEqualTo("<think></think><next_state>Nothing happens.</next_state>");
            assertThat(first.getNextObservation()).isEqualTo("Nothing happens.");
            assertThat(first.getPolicy().getModelVersion()).isEqualTo(5L);
        }
    }

    @Test
    void shouldTakeAReadableActionAndLetTheEnvironmentJudgeIt() {
        try (ModelSlot slot = new ModelSlot()) {
            slot.install(
                    new Answers(2, "<think>look first</think>look", Sample.StopReason.END_OF_TEXT));
            final Transition first =
                    RUNNER.run(TRAIN, new ModelAgent(slot, GREEDY, 4096), "agent-0", 1, 0).get(0);
            assertThat(first.getAction()).isEqualTo("look");
            assertThat(first.getMetadata()).doesNotContainKey(EpisodeRunner.INVALID_ANSWER);
        }
    }

    @Test
    void shouldRecordAPromptThatDoesNotFitAsAnInvalidStep() {
        try (ModelSlot slot = new ModelSlot()) {
            slot.install(new Answers(0, "look", Sample.StopReason.END_OF_TEXT));
            final Transition first =
                    RUNNER.run(TRAIN, new ModelAgent(slot, GREEDY, 16), "agent-0", 1, 0).get(0);
            assertThat(first.getActionValid()).isFalse();
            assertThat(first.getMetadata().get(EpisodeRunner.INVALID_ANSWER))
                    .startsWith("the acting prompt takes ")
                    .endsWith(" tokens, more than the 16 the model leaves it");
        }
    }

    @Test
    void shouldRefuseGroupsOfAnswers() {
        assertThatThrownBy(
                        () ->
                                new ModelAgent(
                                        new ModelSlot(), new SamplingSettings(4, 1f, 1f, 8), 512))
                .hasMessage("an agent samples one answer per step, got a group of 4");
    }

    private static PredictionModel predictor(final long version, final Checkpoint checkpoint) {
        final WorldModel model = WorldModel.load(checkpoint);
        return new WorldModelPredictor(
                version, model.model(), model.tokenizer(), PromptFormat.standard());
    }

    /** Answers every acting prompt with one text; prompts are counted in bytes. */
    private record Answers(long version, String text, Sample.StopReason stop)
            implements PredictionModel {

        @Override
        public int maxContext() {
            return 100_000;
        }

        @Override
        public Prompt prompt(final Transition transition, final int maxTokens) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Prompt actingPrompt(final ActingView view, final int maxTokens) {
            return PromptFormat.standard()
                    .build(
                            view,
                            s -> new int[s.getBytes(StandardCharsets.UTF_8).length],
                            maxTokens,
                            PromptFormat.PLAIN,
                            false);
        }

        @Override
        public String decode(final int[] tokenIds) {
            return text;
        }

        @Override
        public List<List<Sample>> sample(
                final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
            return List.of(
                    List.of(Sample.completed(new int[] {1}, new float[] {0f}, stop, ids -> text)));
        }

        @Override
        public void close() {}
    }
}
