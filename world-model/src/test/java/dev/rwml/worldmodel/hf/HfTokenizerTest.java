package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HfTokenizerTest {

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldEncodeTheFixtureSamplesAsTheHuggingFaceTokenizerDoes(final String fixture) {
        final Path dir = HfFixtures.checkpoint(fixture);
        final JsonNode samples = HfFixtures.expected(fixture).get("tokenizer_samples");
        assertThat(samples.size()).isGreaterThan(0);
        try (HfTokenizer tokenizer = HfTokenizer.load(dir, HfConfig.load(dir))) {
            for (final JsonNode sample : samples) {
                final String text = sample.get("text").asText();
                final int[] expected = new int[sample.get("ids").size()];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = sample.get("ids").get(i).asInt();
                }
                assertThat(tokenizer.encode(text)).as(text).containsExactly(expected);
                assertThat(tokenizer.decode(expected)).isEqualTo(text);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldEndGenerationsAtTheConfiguredEosIds(final String fixture) {
        final Path dir = HfFixtures.checkpoint(fixture);
        final HfConfig config = HfConfig.load(dir);
        try (HfTokenizer tokenizer = HfTokenizer.load(dir, config)) {
            assertThat(tokenizer.endIds()).containsAll(config.eosTokenIds());
        }
    }
}
