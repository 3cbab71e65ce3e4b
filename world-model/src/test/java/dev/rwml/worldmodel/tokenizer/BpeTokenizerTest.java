package dev.rwml.worldmodel.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BpeTokenizerTest {

    private static final List<String> CORPUS =
            List.of(
                    "You arrive at fridge 1. The fridge 1 is closed.",
                    "You open the fridge 1. The fridge 1 is open. In it, you see a apple 2.",
                    "Nothing happens.",
                    "go to countertop 1 <think>reasoning</think><next_state>x</next_state>");

    private static String json;
    private static WorldModelTokenizer tokenizer;

    @BeforeAll
    static void train() {
        final List<String> texts = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            texts.addAll(CORPUS);
        }
        json = BpeTrainer.withDefaultSpecials(400).train(texts);
        tokenizer = WorldModelTokenizer.fromJson(json);
    }

    @AfterAll
    static void close() {
        tokenizer.close();
    }

    @Test
    void shouldWriteHuggingFaceTokenizerJsonWithSpecialTokensAsAddedTokens() throws Exception {
        final JsonNode root = new ObjectMapper().readTree(json);
        assertThat(root.path("model").path("type").asText()).isEqualTo("BPE");
        assertThat(root.path("pre_tokenizer").path("type").asText()).isEqualTo("ByteLevel");
        assertThat(root.path("decoder").path("type").asText()).isEqualTo("ByteLevel");
        assertThat(root.path("model").path("merges").size()).isGreaterThan(50);
        final List<String> added = new ArrayList<>();
        root.path("added_tokens").forEach(t -> added.add(t.path("content").asText()));
        assertThat(added).containsExactlyElementsOf(SpecialTokens.ALL);
        assertThat(tokenizer.vocabSize()).isLessThanOrEqualTo(400).isGreaterThan(262);
    }

    @Test
    void shouldEncodeSpecialTokensAsSingleIds() {
        assertThat(tokenizer.encode("<next_state>")).hasSize(1);
        assertThat(tokenizer.encode("</next_state>")).containsExactly(tokenizer.nextStateCloseId());
        assertThat(tokenizer.encode("<|endoftext|>")).containsExactly(tokenizer.endId());
    }

    @Test
    void shouldCompressTheTrainingTextWithLearnedMerges() {
        final String text = CORPUS.get(1);
        assertThat(tokenizer.encode(text).length).isLessThan(text.length() / 2);
    }

    @Test
    void shouldRoundTripArbitraryUtf8IncludingEmojiCjkAndControlCharacters() {
        final Random random = new Random(7);
        final int[][] ranges = {
            {0x00, 0x7f}, {0x80, 0x7ff}, {0x4e00, 0x9fff}, {0x1f300, 0x1faff}, {0x0600, 0x06ff}
        };
        for (int trial = 0; trial < 300; trial++) {
            final StringBuilder s = new StringBuilder();
            final int length = 1 + random.nextInt(40);
            for (int i = 0; i < length; i++) {
                final int[] range = ranges[random.nextInt(ranges.length)];
                s.appendCodePoint(range[0] + random.nextInt(range[1] - range[0] + 1));
            }
            final String text = s.toString();
            assertThat(tokenizer.decode(tokenizer.encode(text))).isEqualTo(text);
        }
    }

    @Test
    void shouldNotTruncateLongInputs() {
        final String text = "Nothing happens. ".repeat(400);
        assertThat(tokenizer.encode(text).length).isGreaterThan(512);
        assertThat(tokenizer.decode(tokenizer.encode(text))).isEqualTo(text);
    }

    @Test
    void shouldTrainTheSameTokenizerFromTheSameCorpus() {
        assertThat(BpeTrainer.withDefaultSpecials(400).train(CORPUS))
                .isEqualTo(BpeTrainer.withDefaultSpecials(400).train(CORPUS));
    }
}
