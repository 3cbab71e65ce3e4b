package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.model.CausalLM;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.SharedPromptBatch;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.train.GrpoConfig;
import dev.rwml.worldmodel.train.Losses;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A garbage collection between the forward pass and the backward pass leaves every gradient as it
 * is. Autograd keeps the scalar operands of the forward (the attention scale, the loss's caps and
 * normalisers); where one of them lived in Java memory that the collector freed, the backward read
 * freed memory and training skipped steps for NaN gradients or took wrong ones, rarely and at
 * random (see {@link dev.rwml.worldmodel.model.Scalars}). Forcing the collection makes it
 * deterministic.
 */
class BackwardAfterGcTest {

    @ParameterizedTest
    @ValueSource(strings = {"small-gpt", "qwen2-tiny", "llama-tiny"})
    void shouldGiveTheSameGradientsWhenGarbageIsCollectedBeforeBackward(final String name)
            throws InterruptedException {
        try (NDManager manager = DjlRuntime.newManager();
                CausalLM model = load(name, manager)) {
            model.setTrainable(true);
            for (final GrpoConfig grpo :
                    List.of(GrpoConfig.grpo(), GrpoConfig.drGrpo(4), GrpoConfig.dapo())) {
                final Map<String, float[]> quiet = gradients(model, manager, grpo, false);
                final Map<String, float[]> collected = gradients(model, manager, grpo, true);
                for (final String p : quiet.keySet()) {
                    assertThat(collected.get(p))
                            .as("%s %s gradient of %s", name, grpo.aggregation(), p)
                            .containsExactly(quiet.get(p));
                }
            }
        }
    }

    private static Map<String, float[]> gradients(
            final CausalLM model,
            final NDManager manager,
            final GrpoConfig grpo,
            final boolean collectBeforeBackward)
            throws InterruptedException {
        final List<SequenceBatch.Pair> pairs =
                List.of(
                        new SequenceBatch.Pair(new int[] {3, 17, 9, 44, 5}, new int[] {4, 2, 8}),
                        new SequenceBatch.Pair(new int[] {3, 17, 9, 44, 5}, new int[] {6, 1}),
                        new SequenceBatch.Pair(new int[] {8, 11}, new int[] {1, 30, 7, 40}));
        final SharedPromptBatch batch = SharedPromptBatch.of(pairs, 0, model.maxContext());
        final List<float[]> behaviour = new ArrayList<>();
        for (final SequenceBatch.Pair p : pairs) {
            final float[] b = new float[p.completion().length];
            java.util.Arrays.fill(b, -4f);
            behaviour.add(b);
        }
        try (NDManager step = manager.newSubManager()) {
            try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
                final NDArray logProbs = batch.logProbs(model, step);
                final NDArray loss =
                        Losses.grpo(
                                        logProbs,
                                        batch.mask(step),
                                        step.create(
                                                batch.toLayout(behaviour),
                                                new Shape(batch.rows(), batch.width())),
                                        logProbs.stopGradient().add(0.5f),
                                        step.create(
                                                new float[] {1f, -1f, 0.5f},
                                                new Shape(batch.rows(), 1)),
                                        grpo)
                                .loss();
                if (collectBeforeBackward) {
                    System.gc();
                    Thread.sleep(20);
                    // small allocations that reuse whatever the collector freed
                    for (int i = 0; i < 100; i++) {
                        ByteBuffer.allocateDirect(4).putFloat(0, 7f);
                    }
                }
                collector.backward(loss);
            }
            final Map<String, float[]> out = new LinkedHashMap<>();
            for (final Map.Entry<String, NDArray> p : model.parameters().entrySet()) {
                final NDArray g = p.getValue().getGradient();
                g.attach(step);
                out.put(p.getKey(), g.toFloatArray());
                g.set(new NDIndex("..."), 0f);
            }
            return out;
        }
    }

    private static CausalLM load(final String name, final NDManager manager) {
        if (name.equals("small-gpt")) {
            return TransformerLM.initialise(
                    new ModelConfig(64, 32, 2, 4, 64, 64, true), 5, manager);
        }
        return HfDecoder.load(HfFixtures.checkpoint(name), manager);
    }
}
