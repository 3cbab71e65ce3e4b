package dev.rwml.worldmodel.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.TestCorpus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The acting role's prompt: what the agent saw, never the action it asks for nor what followed. */
class ActingPromptTest {

    @Test
    void shouldHoldNeitherTheActionNorTheNextObservation() {
        for (final Transition t : TestCorpus.alfworld(30)) {
            final Transition secret =
                    Transition.newBuilder(t)
                            .setAction("SECRET-ACTION-7")
                            .setNextObservation("SECRET-NEXT-STATE-42")
                            .build();
            assertThat(PromptFormat.standard().text(ActingView.of(secret)))
                    .doesNotContain("SECRET-ACTION-7")
                    .doesNotContain("SECRET-NEXT-STATE-42")
                    .contains(t.getObservation())
                    .contains(t.getTask());
        }
        assertThat(ActingView.class.getRecordComponents())
                .extracting(c -> c.getName().toLowerCase())
                .noneMatch(n -> n.contains("next") || n.equals("action"));
    }

    @Test
    void shouldListTheAdmissibleActionsOfAHouseholdAndAskForTheNextAction() {
        final ActingView view =
                new ActingView(
                        "alfworld",
                        "put a mug in the fridge",
                        List.of(new PromptView.HistoryTurn("look", "You are in a kitchen.")),
                        "You arrive at sink 1.",
                        List.of("go to fridge 1", "take mug 1 from sink 1"));
        assertThat(PromptFormat.standard().text(view))
                .isEqualTo(
                        "You are an expert agent in the ALFRED embodied household environment."
                                + " Choose the next action that brings the task closer to done.\n"
                                + "Task: put a mug in the fridge\n"
                                + "You are in a kitchen.\n"
                                + "> look\n"
                                + "Your current observation is: You arrive at sink 1.\n"
                                + "Admissible actions: go to fridge 1, take mug 1 from sink 1\n"
                                + "Your next action:\n");
    }

    @Test
    void shouldLeaveADesksCandidateSampleOutOfItsPrompt() {
        final Transition tool = TestCorpus.retailToolCall();
        final Transition withCandidates =
                Transition.newBuilder(tool)
                        .setAdmissibleActions(List.of("CANDIDATE-A", "CANDIDATE-B"))
                        .build();
        final ActingView view = ActingView.of(withCandidates);
        assertThat(view.admissibleActions()).isEmpty();
        assertThat(PromptFormat.standard().text(view))
                .contains("agent of the retail customer-service desk")
                .contains("agent: Hi! How can I help?")
                .endsWith("Agent's next action:\n")
                .doesNotContain("CANDIDATE");
    }

    @Test
    void shouldDropTheOldestTurnsFirstToFitAndSayWhenNothingFits() {
        final ActingView view =
                new ActingView(
                        "alfworld",
                        "task",
                        List.of(
                                new PromptView.HistoryTurn("look", "first " + "x ".repeat(40)),
                                new PromptView.HistoryTurn("inventory", "second")),
                        "now",
                        List.of("look"));
        final PromptFormat format = PromptFormat.standard();
        final int whole =
                format.build(view, ActingPromptTest::chars, 100_000, PromptFormat.PLAIN, false)
                        .tokenIds()
                        .length;
        final Prompt cut =
                format.build(view, ActingPromptTest::chars, whole - 10, PromptFormat.PLAIN, false);
        assertThat(cut.fits()).isTrue();
        assertThat(cut.droppedTurns()).isEqualTo(1);
        assertThat(cut.text()).contains("second").doesNotContain("first");
        final Prompt none =
                format.build(view, ActingPromptTest::chars, 10, PromptFormat.PLAIN, false);
        assertThat(none.fits()).isFalse();
        assertThat(none.droppedTurns()).isEqualTo(2);
    }

    @Test
    void shouldTellAChatModelTheAnswersShapeForItsRole() {
        final ActingView view = new ActingView("alfworld", "t", List.of(), "o", List.of("look"));
        final String text =
                PromptFormat.standard()
                        .build(
                                view,
                                ActingPromptTest::chars,
                                100_000,
                                (system, user) -> system,
                                true)
                        .text();
        assertThat(text).endsWith(PromptFormat.ACTION_FORMAT);
        final String predicting =
                PromptFormat.standard()
                        .build(
                                PromptView.of(TestCorpus.alfworld(1).get(0)),
                                ActingPromptTest::chars,
                                100_000,
                                (system, user) -> system,
                                true)
                        .text();
        assertThat(predicting).endsWith(PromptFormat.ANSWER_FORMAT);
    }

    /** One id per character: a tokenizer whose counts are easy to follow. */
    private static int[] chars(final String text) {
        return text.chars().toArray();
    }

    @Test
    void shouldRememberMoreTurnsWhenActingThanWhenPredicting() {
        final List<PromptView.HistoryTurn> turns =
                java.util.stream.IntStream.range(0, 12)
                        .mapToObj(i -> new PromptView.HistoryTurn("go to drawer " + i, "obs " + i))
                        .toList();
        final String acting =
                PromptFormat.standard()
                        .text(new ActingView("alfworld", "task", turns, "now", List.of("look")));
        assertThat(acting)
                .as("the last %d turns", PromptFormat.ACTING_HISTORY_TURNS)
                .contains("go to drawer 4", "go to drawer 11")
                .doesNotContain("go to drawer 3\n");
        final String predicting =
                PromptFormat.standard()
                        .text(new PromptView("alfworld", "task", turns, "now", "look", false));
        assertThat(predicting)
                .as("the world model's H = 2")
                .contains("go to drawer 10", "go to drawer 11")
                .doesNotContain("go to drawer 9\n");
    }
}
