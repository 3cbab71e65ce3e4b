package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.worldmodel.model.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParameterDriftTest {

    @Test
    void shouldCountOnlyChangesAboveOneThousandthOfTheLargerMagnitude() {
        final Map<String, Tensor> base = new LinkedHashMap<>();
        base.put("a", new Tensor(new long[] {2, 2}, new float[] {1f, 1f, -2f, 0f}));
        base.put("b", new Tensor(new long[] {3}, new float[] {100f, 0f, 0.5f}));
        final Map<String, Tensor> model = new LinkedHashMap<>();
        // 1 -> 1.0005: 5e-4 < 1e-3 * 1.0005, unchanged; 1 -> 1.002: changed; -2 -> 2: changed;
        // 0 -> 0: unchanged.
        model.put("a", new Tensor(new long[] {2, 2}, new float[] {1.0005f, 1.002f, 2f, 0f}));
        // 100 -> 100.05: 0.05 < 0.1, unchanged; 0 -> 1e-9: changed (relative to 1e-9);
        // 0.5 -> 0.5: unchanged.
        model.put("b", new Tensor(new long[] {3}, new float[] {100.05f, 1e-9f, 0.5f}));

        final ParameterDrift drift = ParameterDrift.between(base, model);

        assertThat(drift.changed()).isEqualTo(3);
        assertThat(drift.total()).isEqualTo(7);
        assertThat(drift.fraction()).isEqualTo(3.0 / 7);
        assertThat(drift.relativeChange()).containsOnlyKeys("a", "b");
        // ||(0.0005, 0.002, 4, 0)|| / ||(1, 1, -2, 0)||
        assertThat(drift.relativeChange().get("a"))
                .isCloseTo(Math.sqrt((0.0005 * 0.0005 + 0.002 * 0.002 + 16) / 6), within(1e-6));
    }

    @Test
    void shouldCountChangesWithoutTheEmbeddingTablesAndRelateEachTensorsChangeToItsNorm() {
        final Map<String, Tensor> base = new LinkedHashMap<>();
        base.put("tok_emb.weight", new Tensor(new long[] {2, 2}, new float[] {1f, 2f, 3f, 4f}));
        base.put("pos_emb.weight", new Tensor(new long[] {1, 2}, new float[] {1f, 1f}));
        base.put("blocks.0.ln1.bias", new Tensor(new long[] {2}, new float[] {0f, 0f}));
        base.put("blocks.0.mlp.weight", new Tensor(new long[] {2}, new float[] {3f, 4f}));
        final Map<String, Tensor> model = new LinkedHashMap<>();
        model.put("tok_emb.weight", new Tensor(new long[] {2, 2}, new float[] {2f, 3f, 4f, 5f}));
        model.put("pos_emb.weight", new Tensor(new long[] {1, 2}, new float[] {1f, 1f}));
        model.put("blocks.0.ln1.bias", new Tensor(new long[] {2}, new float[] {0.1f, 0f}));
        model.put("blocks.0.mlp.weight", new Tensor(new long[] {2}, new float[] {3f, 4f}));

        final ParameterDrift drift = ParameterDrift.between(base, model);

        assertThat(drift.changed()).isEqualTo(5);
        assertThat(drift.total()).isEqualTo(10);
        assertThat(drift.changedWithoutEmbeddings()).isEqualTo(1);
        assertThat(drift.totalWithoutEmbeddings()).isEqualTo(4);
        assertThat(drift.fractionWithoutEmbeddings()).isEqualTo(0.25);
        assertThat(drift.relativeChange().keySet())
                .containsExactly(
                        "tok_emb.weight",
                        "pos_emb.weight",
                        "blocks.0.ln1.bias",
                        "blocks.0.mlp.weight");
        assertThat(drift.relativeChange().get("tok_emb.weight"))
                .isCloseTo(2 / Math.sqrt(30), within(1e-9));
        assertThat(drift.relativeChange().get("pos_emb.weight")).isZero();
        assertThat(drift.relativeChange().get("blocks.0.ln1.bias"))
                .as("a tensor that moved from zeros has no relative change")
                .isNaN();
        assertThat(drift.relativeChange().get("blocks.0.mlp.weight")).isZero();
    }

    @Test
    void shouldFindNothingChangedBetweenAModelAndItself() {
        final Map<String, Tensor> w =
                Map.of("w", new Tensor(new long[] {2}, new float[] {3f, -4f}));
        assertThat(ParameterDrift.between(w, w))
                .isEqualTo(new ParameterDrift(0, 2, 0, 2, Map.of("w", 0.0)));
    }

    @Test
    void shouldRefuseModelsOfOtherShapes() {
        final Map<String, Tensor> base = Map.of("w", new Tensor(new long[] {2}, new float[2]));
        final Map<String, Tensor> model = Map.of("w", new Tensor(new long[] {1, 2}, new float[2]));
        assertThatThrownBy(() -> ParameterDrift.between(base, model))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 0 of its own run");
    }
}
