package dev.rwml.worldmodel.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryEstimateTest {

    /** SmolLM2-135M's sizes. */
    private static final DecoderShape SMOLLM2 =
            new DecoderShape(134_515_008L, 30, 576, 9, 3, 64, 1536, 49_152);

    private static SharedPromptBatch group(
            final int prompts, final int promptTokens, final int g, final int newTokens) {
        final List<SequenceBatch.Pair> pairs = new ArrayList<>();
        for (int p = 0; p < prompts; p++) {
            final int[] prompt = new int[promptTokens];
            Arrays.fill(prompt, p + 1);
            for (int s = 0; s < g; s++) {
                pairs.add(new SequenceBatch.Pair(prompt, new int[newTokens]));
            }
        }
        return SharedPromptBatch.of(pairs, 0, 8192);
    }

    @Test
    void shouldCountEachPartOfATrainingStepFromTheBatchShape() {
        final MemoryEstimate one =
                MemoryEstimate.trainingStep(SMOLLM2, SMOLLM2.parameters(), 0, group(1, 128, 8, 16));
        final MemoryEstimate two =
                MemoryEstimate.trainingStep(SMOLLM2, SMOLLM2.parameters(), 0, group(2, 128, 8, 16));

        assertThat(one.parts().keySet())
                .containsExactly(
                        "gradients and AdamW moments",
                        "activations",
                        "attention scores",
                        "log-probs",
                        "engine buffers");
        // every weight trained: a gradient and two moments of four bytes each
        assertThat(one.parts().get("gradients and AdamW moments"))
                .isEqualTo(12 * SMOLLM2.parameters());
        // the log-probs over the vocabulary of 8 x 16 completion tokens, value and gradients
        assertThat(one.parts().get("log-probs")).isEqualTo(3L * 8 * 16 * 49_152 * 4);
        // twice the groups: twice the activations, scores and log-probs; the same fixed parts
        for (final String part : List.of("activations", "attention scores", "log-probs")) {
            assertThat(two.parts().get(part)).isEqualTo(2 * one.parts().get(part));
        }
        assertThat(two.parts().get("engine buffers")).isEqualTo(one.parts().get("engine buffers"));
        assertThat(one.describe()).startsWith(MemoryEstimate.size(one.total()) + " (gradients");
    }

    @Test
    void shouldCountAnAdaptersGradientsAndWhatItKeepsInsteadOfEveryWeightsGradients() {
        final SharedPromptBatch batch = group(1, 512, 8, 64);
        // r = 16 on the seven projections: per layer, the inputs and outputs it keeps
        final long adapterFloats = 30L * (2 * (576 + 576) + 2 * (576 + 192) + 3 * (576 + 1536));
        final MemoryEstimate full =
                MemoryEstimate.trainingStep(SMOLLM2, SMOLLM2.parameters(), 0, batch);
        final MemoryEstimate lora =
                MemoryEstimate.trainingStep(SMOLLM2, 4_884_480L, adapterFloats, batch);

        assertThat(lora.parts().get("gradients and AdamW moments")).isEqualTo(12 * 4_884_480L);
        assertThat(lora.parts().get("adapter activations"))
                .isEqualTo((512 + 8 * 64) * adapterFloats * 4);
        assertThat(full.parts()).doesNotContainKey("adapter activations");
        assertThat(lora.parts().get("activations")).isEqualTo(full.parts().get("activations"));
        assertThat(lora.total()).isLessThan(full.total());
    }

    @Test
    void shouldGrowWithThePromptFasterThanLinearlyThroughTheAttentionScores() {
        final long shortPrompt =
                MemoryEstimate.trainingStep(SMOLLM2, 0, 0, group(1, 256, 8, 16))
                        .parts()
                        .get("attention scores");
        final long longPrompt =
                MemoryEstimate.trainingStep(SMOLLM2, 0, 0, group(1, 1024, 8, 16))
                        .parts()
                        .get("attention scores");

        assertThat(longPrompt).isGreaterThan(8 * shortPrompt);
    }

    @Test
    void shouldWriteSizesInTheUnitThatSuitsThem() {
        assertThat(MemoryEstimate.size(1024)).isEqualTo("1 KiB");
        assertThat(MemoryEstimate.size(3L << 20)).isEqualTo("3 MiB");
        assertThat(MemoryEstimate.size(3L << 29)).isEqualTo("1.50 GiB");
    }
}
