package dev.rwml.worldmodel.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.worldmodel.Fixtures;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.model.SequenceBatch;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class GeneratorTest {

    private static WorldModel model;
    private static List<int[]> prompts;

    @BeforeAll
    static void create() {
        model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 5);
        prompts =
                List.of(
                        model.tokenizer().encode("Your current observation is: a room.\n"),
                        model.tokenizer().encode("Potential action: go to fridge 1\n"));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @Test
    void shouldGiveTheSameSamplesForTheSameSeedAndOthersForAnotherSeed() {
        final SamplingParams params = new SamplingParams(1f, 0.9f, 12, 42);
        final List<List<Sample>> a = model.generator().generate(prompts, 3, params);
        final List<List<Sample>> b = model.generator().generate(prompts, 3, params);
        final List<List<Sample>> c =
                model.generator().generate(prompts, 3, new SamplingParams(1f, 0.9f, 12, 43));
        assertThat(a).hasSize(2).allSatisfy(g -> assertThat(g).hasSize(3));
        for (int p = 0; p < 2; p++) {
            for (int j = 0; j < 3; j++) {
                assertThat(b.get(p).get(j).tokenIds()).containsExactly(a.get(p).get(j).tokenIds());
                assertThat(b.get(p).get(j).logProbs()).containsExactly(a.get(p).get(j).logProbs());
            }
        }
        assertThat(flatten(c)).isNotEqualTo(flatten(a));
    }

    @Test
    void shouldRecordBehaviourLogProbsEqualToScoringTheSampledTokens() {
        final List<List<Sample>> groups =
                model.generator().generate(prompts, 2, new SamplingParams(0.7f, 0.8f, 10, 1));
        for (int p = 0; p < prompts.size(); p++) {
            for (final Sample s : groups.get(p)) {
                assertThat(s.tokenIds()).hasSizeBetween(1, 10);
                final float[] scored =
                        model.scorer()
                                .score(
                                        List.of(
                                                new SequenceBatch.Pair(
                                                        prompts.get(p), s.tokenIds())))
                                .get(0);
                for (int i = 0; i < scored.length; i++) {
                    assertThat(s.logProbs()[i]).isCloseTo(scored[i], within(1e-3f));
                }
            }
        }
    }

    @Test
    void shouldStopAtTheTokenLimitAndDecodeText() {
        final Sample s =
                model.generator()
                        .generate(prompts.subList(0, 1), 1, new SamplingParams(0f, 1f, 5, 0))
                        .get(0)
                        .get(0);
        if (s.stopReason() == Sample.StopReason.LENGTH) {
            assertThat(s.tokenIds()).hasSize(5);
        }
        assertThat(s.text()).isEqualTo(model.tokenizer().decode(s.tokenIds()));
    }

    private static String flatten(final List<List<Sample>> groups) {
        final StringBuilder s = new StringBuilder();
        groups.forEach(g -> g.forEach(x -> s.append(java.util.Arrays.toString(x.tokenIds()))));
        return s.toString();
    }
}
