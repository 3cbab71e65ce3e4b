package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.rwml.worldmodel.DjlRuntime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A frozen decoder runs its q/k/v and gate/up projections through weights fused at load, a trained
 * one through its named parameters: the two must agree after the named parameters change in place
 * (as the optimizer changes them), with and without an adapter on some of the fused projections.
 */
class FusedProjectionsTest {

    private static final long[] IDS = {5, 17, 255, 42, 9, 300, 77};

    @Test
    void shouldSeeInPlaceUpdatesOfTheNamedParametersThroughTheFusedWeights() {
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(HfFixtures.checkpoint("qwen2-tiny"), manager)) {
            final float[] before = logits(model, manager);
            final Map<String, NDArray> p = model.parameters();
            final String b = "model.layers.1.";
            p.get(b + "self_attn.q_proj.weight").subi(0.05f);
            p.get(b + "self_attn.k_proj.bias").addi(0.1f);
            p.get(b + "self_attn.v_proj.weight").muli(1.5f);
            p.get(b + "mlp.up_proj.weight").muli(1.1f);
            final float[] fused = logits(model, manager);
            model.setTrainable(true);
            final float[] apart = logits(model, manager);
            model.setTrainable(false);
            assertThat(fused).containsExactly(apart, within(1e-5f));
            assertThat(maxDifference(before, fused)).isGreaterThan(1e-3f);
        }
    }

    @Test
    void shouldAddAnAdaptersDeltasToTheFusedProjectionsItAdapts() {
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder base = HfDecoder.load(HfFixtures.checkpoint("llama-tiny"), manager);
                HfDecoder view =
                        base.withAdapter(
                                LoraAdapter.create(
                                        base.config(),
                                        LoraConfig.parse("r=2,alpha=4,targets=q+v+up"),
                                        3,
                                        manager))) {
            final float[] plain = logits(view, manager);
            for (final Map.Entry<String, NDArray> e : view.parameters().entrySet()) {
                if (e.getKey().endsWith("lora_B.weight")) {
                    e.getValue().addi(0.2f);
                }
            }
            final float[] fused = logits(view, manager);
            base.setTrainable(true);
            final float[] apart = logits(view, manager);
            base.setTrainable(false);
            assertThat(fused).containsExactly(apart, within(1e-5f));
            assertThat(maxDifference(plain, fused)).isGreaterThan(1e-3f);
        }
    }

    private static float[] logits(final HfDecoder model, final NDManager manager) {
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager step = manager.newSubManager()) {
            final long[] pos = new long[IDS.length];
            for (int i = 0; i < pos.length; i++) {
                pos[i] = i;
            }
            return model.forward(
                            step.create(IDS, new Shape(1, IDS.length)),
                            step.create(pos, new Shape(1, IDS.length)),
                            dev.rwml.worldmodel.model.Masks.causal(step, IDS.length),
                            null)
                    .toFloatArray();
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    private static float maxDifference(final float[] a, final float[] b) {
        float max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs(a[i] - b[i]));
        }
        return max;
    }
}
