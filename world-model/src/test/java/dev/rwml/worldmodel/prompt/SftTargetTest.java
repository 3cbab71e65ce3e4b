package dev.rwml.worldmodel.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.TestCorpus;
import dev.rwml.worldmodel.hf.HfConfig;
import dev.rwml.worldmodel.hf.HfFixtures;
import dev.rwml.worldmodel.hf.HfTokenizer;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SftTargetTest {

    private static final String NEXT = TestCorpus.alfworld(1).get(0).getNextObservation();

    @Test
    void shouldWriteTheEmptyReasoningAndTheNextStateThatTheParserReadsBack() {
        assertThat(SftTarget.text(NEXT))
                .isEqualTo("<think></think><next_state>" + NEXT + "</next_state>");
        assertThat(NextStateParser.parse(SftTarget.text(NEXT))).contains(NEXT);
    }

    @Test
    void shouldWriteTheActingTargetThatTheAnswerReaderReadsBackThenTheEndOfText() {
        final String action = TestCorpus.alfworld(1).get(0).getAction();
        assertThat(SftTarget.actionText(action)).isEqualTo("<think></think>" + action);
        assertThat(ActionAnswer.parse(SftTarget.actionText(action), true).action())
                .contains(action);
        try (WorldModelTokenizer t = WorldModelTokenizer.fromJson(Fixtures.TOKENIZER_JSON)) {
            final int[] ids = SftTarget.actionIds(t, action);
            assertThat(ids[ids.length - 1]).isEqualTo(t.endId());
            assertThat(t.decode(Arrays.copyOf(ids, ids.length - 1)))
                    .isEqualTo(SftTarget.actionText(action));
        }
    }

    @Test
    void shouldEndWhereTheSmallModelsSamplerStopsThenAddTheEndOfText() {
        try (WorldModelTokenizer t = WorldModelTokenizer.fromJson(Fixtures.TOKENIZER_JSON)) {
            final int[] ids = SftTarget.ids(t, NEXT);
            // <think> and </think> are single tokens with nothing between them
            assertThat(t.decode(new int[] {ids[0], ids[1]})).isEqualTo("<think></think>");
            assertEndsWhereSamplingStops(t, ids);
        }
    }

    @Test
    void shouldEndWhereAHuggingFaceSamplerStopsThenAddTheEndOfTurn() {
        final Path dir = HfFixtures.checkpoint("qwen2-tiny");
        try (HfTokenizer t = HfTokenizer.load(dir, HfConfig.load(dir))) {
            assertEndsWhereSamplingStops(t, SftTarget.ids(t, NEXT));
        }
    }

    /**
     * The generator's stop rule over the target: no text token is an end id, the closing tag is
     * complete exactly at the last text token, and the end id follows it.
     */
    private static void assertEndsWhereSamplingStops(
            final GenerationTokenizer tokenizer, final int[] ids) {
        final int textLength = ids.length - 1;
        final int[] text = Arrays.copyOf(ids, textLength);
        assertThat(tokenizer.decode(text)).isEqualTo(SftTarget.text(NEXT));
        for (int n = 1; n <= textLength; n++) {
            assertThat(tokenizer.isEnd(text[n - 1])).as("token %d", n).isFalse();
            assertThat(tokenizer.closesNextState(text, n))
                    .as("closed after %d of %d tokens", n, textLength)
                    .isEqualTo(n == textLength);
        }
        assertThat(ids[textLength]).isEqualTo(tokenizer.endId());
        assertThat(tokenizer.isEnd(ids[textLength])).isTrue();
    }
}
