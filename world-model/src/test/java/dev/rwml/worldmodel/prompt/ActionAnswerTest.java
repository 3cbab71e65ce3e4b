package dev.rwml.worldmodel.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ActionAnswerTest {

    @Test
    void shouldTakeTheActionAfterTheReasoning() {
        final ActionAnswer answer =
                ActionAnswer.parse(
                        "<think>the mug is in the sink</think> take mug 1 from sink 1 ", true);
        assertThat(answer.action()).contains("take mug 1 from sink 1");
        assertThat(answer.problem()).isEmpty();
    }

    @Test
    void shouldTakeAnAnswerWithoutReasoningAsTheAction() {
        assertThat(ActionAnswer.parse("go to fridge 1", true).action()).contains("go to fridge 1");
        assertThat(ActionAnswer.parse("<think></think>look", true).action()).contains("look");
    }

    @Test
    void shouldSayWhyAnAnswerHoldsNoAction() {
        assertThat(ActionAnswer.parse("<think>go to fridge 1</think>go to", false).problem())
                .contains("the answer reached its token limit before it ended");
        assertThat(ActionAnswer.parse("  ", true).problem()).contains("the answer is empty");
        assertThat(ActionAnswer.parse("<think>so I go to", true).problem())
                .contains("the reasoning is never closed (no </think> after <think>)");
        assertThat(ActionAnswer.parse("<think>done</think>", true).problem())
                .contains("no action after the reasoning");
        assertThat(
                        ActionAnswer.parse(
                                        "<think></think><next_state>Nothing happens.</next_state>",
                                        true)
                                .problem())
                .contains("the answer is a next-state prediction, not an action");
        assertThat(
                        ActionAnswer.parse("<think>a</think>open drawer 1\nclose drawer 1", true)
                                .problem())
                .contains("the action spans 2 lines, not one");
        assertThat(ActionAnswer.parse("<think>a</think>look</think>", true).problem())
                .as("the last </think> ends the reasoning")
                .contains("no action after the reasoning");
    }

    @Test
    void shouldNeverThrowOnNull() {
        assertThat(ActionAnswer.parse(null, true).problem()).contains("the answer is empty");
    }
}
