package dev.rwml.worldmodel.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.TestCorpus;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PromptFormatTest {

    @Test
    void shouldNeverContainTheNextObservation() {
        for (final Transition t : TestCorpus.alfworld(30)) {
            final Transition secret =
                    Transition.newBuilder(t).setNextObservation("SECRET-NEXT-STATE-42").build();
            assertThat(PromptFormat.standard().text(PromptView.of(secret)))
                    .doesNotContain("SECRET-NEXT-STATE-42")
                    .contains(t.getObservation())
                    .contains(t.getAction())
                    .contains(t.getTask());
        }
        final Transition tool =
                Transition.newBuilder(TestCorpus.retailToolCall())
                        .setNextObservation("SECRET")
                        .build();
        assertThat(PromptFormat.standard().text(PromptView.of(tool))).doesNotContain("SECRET");
        assertThat(PromptView.class.getRecordComponents())
                .extracting(c -> c.getName().toLowerCase())
                .noneMatch(n -> n.contains("next"));
    }

    @Test
    void shouldFormatHouseholdAndToolCallPromptsPerKind() {
        final String household =
                PromptFormat.standard().text(PromptView.of(TestCorpus.alfworld(1).get(0)));
        assertThat(household)
                .contains("ALFRED")
                .contains("Your current observation is: You are in the middle of a room")
                .contains("Potential action: go to fridge 1");
        final String retail =
                PromptFormat.standard().text(PromptView.of(TestCorpus.retailToolCall()));
        assertThat(retail)
                .contains("retail")
                .contains("Agent tool call: {\"name\":\"find_user_id_by_email\"")
                .contains("agent: Hi! How can I help?");
        final Transition message =
                Transition.newBuilder(TestCorpus.retailToolCall())
                        .setAction("Could you give me your email?")
                        .setNextKind(NextStateKind.USER_MESSAGE)
                        .build();
        assertThat(PromptFormat.standard().text(PromptView.of(message)))
                .contains("Agent message: Could you give me your email?");
    }

    @Test
    void shouldKeepOnlyTheLastTurnsAndDropOldestFirstToFit() {
        final List<Turn> history = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            history.add(new Turn("action-" + i, "observation number " + i + " ".repeat(3)));
        }
        final Transition t =
                Transition.newBuilder(TestCorpus.alfworld(1).get(0)).setHistory(history).build();
        final String text = PromptFormat.standard().text(PromptView.of(t));
        assertThat(text).contains("action-3").contains("action-4").doesNotContain("action-2");

        try (WorldModelTokenizer tokenizer =
                WorldModelTokenizer.fromJson(Fixtures.TOKENIZER_JSON)) {
            final Prompt full = PromptFormat.standard().build(PromptView.of(t), tokenizer, 10_000);
            assertThat(full.fits()).isTrue();
            assertThat(full.droppedTurns()).isZero();
            final int withoutOneTurn =
                    tokenizer.encode(new PromptFormat(1).text(PromptView.of(t))).length;
            final Prompt cut =
                    PromptFormat.standard().build(PromptView.of(t), tokenizer, withoutOneTurn);
            assertThat(cut.fits()).isTrue();
            assertThat(cut.droppedTurns()).isEqualTo(1);
            assertThat(cut.text()).contains("action-4").doesNotContain("action-3");
            assertThat(cut.tokenIds()).hasSizeLessThanOrEqualTo(withoutOneTurn);
            final Prompt tooLong = PromptFormat.standard().build(PromptView.of(t), tokenizer, 5);
            assertThat(tooLong.fits()).isFalse();
            assertThat(tooLong.droppedTurns()).isEqualTo(2);
        }
    }

    @Test
    void shouldParseTheNextStateAndReturnEmptyForMalformedTags() {
        assertThat(
                        NextStateParser.parse(
                                "<think>hmm</think><next_state> You see a mug. </next_state>"))
                .contains("You see a mug.");
        assertThat(NextStateParser.parse("<next_state>a</next_state><next_state>b</next_state>"))
                .contains("b");
        assertThat(NextStateParser.parse("<next_state>unclosed")).isEmpty();
        assertThat(NextStateParser.parse("</next_state>closed before<next_state>")).isEmpty();
        assertThat(NextStateParser.parse("no tags at all")).isEmpty();
        assertThat(NextStateParser.parse("")).isEmpty();
        assertThat(NextStateParser.parse(null)).isEmpty();
    }

    @Test
    void shouldNeverThrowOnRandomGarbage() {
        final Random random = new Random(3);
        final String[] parts = {
            "<next_state>",
            "</next_state>",
            "<think>",
            "</think>",
            "<",
            ">",
            "/",
            "next_state",
            "x",
            "\u0000",
            "😀"
        };
        for (int i = 0; i < 5000; i++) {
            final StringBuilder s = new StringBuilder();
            for (int k = random.nextInt(8); k > 0; k--) {
                s.append(parts[random.nextInt(parts.length)]);
            }
            final Optional<String> parsed = NextStateParser.parse(s.toString());
            parsed.ifPresent(p -> assertThat(p).doesNotContain("</next_state>"));
        }
    }
}
