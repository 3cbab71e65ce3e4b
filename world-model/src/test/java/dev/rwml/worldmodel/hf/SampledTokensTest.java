package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDManager;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.generate.Generator;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.generate.SamplingParams;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tokens and behaviour log-probs the generator draws from the tiny fixtures for a fixed seed
 * (two prompts of different lengths, so one is left-padded; G = 3; grouped-query attention),
 * recorded from the decoder before its decode step was made faster (2026-12-02): a change of the
 * step's arithmetic must leave what is sampled as it was.
 */
class SampledTokensTest {

    private static final List<int[]> PROMPTS =
            List.of(new int[] {5, 17, 255, 42, 9, 300, 77}, new int[] {381, 12, 200});

    @Test
    void shouldDrawTheSameTokensAndLogProbsAsBeforeFromQwen2() {
        assertDraws(
                "qwen2-tiny",
                new SamplingParams(0.8f, 0.9f, 10, 11),
                QWEN2_TOKENS,
                QWEN2_LOG_PROBS);
    }

    @Test
    void shouldDrawTheSameTokensAndLogProbsAsBeforeFromLlamaGreedily() {
        assertDraws(
                "llama-tiny", new SamplingParams(0f, 1f, 10, 11), LLAMA_TOKENS, LLAMA_LOG_PROBS);
    }

    private static void assertDraws(
            final String fixture,
            final SamplingParams params,
            final int[][] tokens,
            final float[][] logProbs) {
        final List<Sample> samples = new ArrayList<>();
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(HfFixtures.checkpoint(fixture), manager)) {
            final Generator generator =
                    new Generator(model, new NeverEndingTokenizer(model.vocabSize()));
            generator.generate(PROMPTS, 3, params).forEach(samples::addAll);
        }
        final StringBuilder actual = new StringBuilder();
        for (final Sample s : samples) {
            actual.append(Arrays.toString(s.tokenIds()))
                    .append(Arrays.toString(s.logProbs()))
                    .append('\n');
        }
        assertThat(samples).as(actual.toString()).hasSize(tokens.length);
        for (int r = 0; r < tokens.length; r++) {
            assertThat(samples.get(r).tokenIds()).as(actual.toString()).containsExactly(tokens[r]);
            assertThat(samples.get(r).logProbs())
                    .as(actual.toString())
                    .containsExactly(logProbs[r], within(2e-5f));
        }
    }

    private static final int[][] QWEN2_TOKENS = {
        {185, 234, 302, 221, 228, 221, 141, 379, 374, 200},
        {4, 221, 154, 263, 6, 28, 278, 119, 256, 86},
        {157, 185, 203, 228, 322, 25, 78, 182, 46, 326},
        {214, 383, 210, 104, 71, 219, 272, 38, 322, 124},
        {181, 101, 46, 25, 123, 307, 34, 281, 227, 251},
        {376, 61, 114, 126, 111, 87, 14, 185, 63, 162}
    };

    private static final float[][] QWEN2_LOG_PROBS = {
        {
            -5.745259f,
            -5.8553505f,
            -5.7778087f,
            -5.7238197f,
            -5.9711227f,
            -5.833485f,
            -6.0107894f,
            -6.0946193f,
            -5.456539f,
            -5.98578f
        },
        {
            -5.8119316f,
            -5.8228264f,
            -5.980652f,
            -5.9383516f,
            -5.856324f,
            -5.977274f,
            -6.1069326f,
            -5.9844675f,
            -5.977501f,
            -6.018031f
        },
        {
            -6.0759397f,
            -5.631537f,
            -5.7931113f,
            -6.0525475f,
            -5.7637043f,
            -5.9370213f,
            -6.012868f,
            -6.0972137f,
            -5.9456153f,
            -5.9199934f
        },
        {
            -5.970647f,
            -5.768568f,
            -5.8220816f,
            -5.9438214f,
            -6.084943f,
            -6.036834f,
            -5.750939f,
            -5.9035373f,
            -5.8880205f,
            -5.9628673f
        },
        {
            -5.745385f,
            -6.0007114f,
            -5.689849f,
            -6.089969f,
            -5.883878f,
            -6.07504f,
            -6.0667686f,
            -5.84354f,
            -5.9404793f,
            -5.992757f
        },
        {
            -5.7849407f,
            -5.9236207f,
            -5.9625764f,
            -5.9813757f,
            -6.032326f,
            -6.044213f,
            -5.9609566f,
            -5.723738f,
            -6.112142f,
            -6.02087f
        }
    };

    private static final int[][] LLAMA_TOKENS = {
        {73, 81, 377, 124, 349, 383, 144, 307, 236, 83},
        {73, 81, 377, 124, 349, 383, 144, 307, 236, 83},
        {73, 81, 377, 124, 349, 383, 144, 307, 236, 83},
        {255, 203, 255, 203, 203, 203, 203, 203, 203, 203},
        {255, 203, 255, 203, 203, 203, 203, 203, 203, 203},
        {255, 203, 255, 203, 203, 203, 203, 203, 203, 203}
    };

    private static final float[][] LLAMA_LOG_PROBS = {
        {
            -5.4728327f,
            -5.4511576f,
            -5.480152f,
            -5.5406113f,
            -5.527673f,
            -5.541052f,
            -5.59065f,
            -5.522355f,
            -5.4945025f,
            -5.4531665f
        },
        {
            -5.4728327f,
            -5.4511576f,
            -5.480152f,
            -5.5406113f,
            -5.527673f,
            -5.541052f,
            -5.59065f,
            -5.522355f,
            -5.4945025f,
            -5.4531665f
        },
        {
            -5.4728327f,
            -5.4511576f,
            -5.480152f,
            -5.5406113f,
            -5.527673f,
            -5.541052f,
            -5.59065f,
            -5.522355f,
            -5.4945025f,
            -5.4531665f
        },
        {
            -5.5443254f,
            -5.4834604f,
            -5.4723296f,
            -5.4885616f,
            -5.4989696f,
            -5.4892564f,
            -5.486112f,
            -5.48643f,
            -5.488519f,
            -5.4916253f
        },
        {
            -5.5443254f,
            -5.4834604f,
            -5.4723296f,
            -5.4885616f,
            -5.4989696f,
            -5.4892564f,
            -5.486112f,
            -5.48643f,
            -5.488519f,
            -5.4916253f
        },
        {
            -5.5443254f,
            -5.4834604f,
            -5.4723296f,
            -5.4885616f,
            -5.4989696f,
            -5.4892564f,
            -5.486112f,
            -5.48643f,
            -5.488519f,
            -5.4916253f
        }
    };
}
