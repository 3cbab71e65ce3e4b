package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.ModelRuntime;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code model.device}: the CPU path says which device and threads it uses, {@code gpu} without a
 * GPU is refused with what to do, and, only where PyTorch sees a GPU, a checkpoint on it matches
 * the fixtures' golden logits in one pass and through the KV cache.
 */
class DeviceTest {

    @AfterEach
    void backToTheDefault() {
        new ModelRuntime(1, "auto").apply();
    }

    @Test
    void shouldSayWhichDeviceAndThreadsTheCpuPathUses() {
        final String line = new ModelRuntime(1, "cpu").apply();
        assertThat(line)
                .startsWith("PyTorch 2.7.1 on cpu() (model.device=cpu, ")
                .contains(": 1 intra-op thread(s), 1 inter-op, ");
        assertThat(DjlRuntime.device()).isEqualTo(Device.cpu());
        try (NDManager manager = DjlRuntime.newManager()) {
            assertThat(manager.getDevice()).isEqualTo(Device.cpu());
        }
    }

    @Test
    void shouldRefuseTheGpuWhenPyTorchSeesNone() {
        assumeTrue(DjlRuntime.engine().getGpuCount() == 0, "this machine has a GPU");
        assertThatThrownBy(() -> new ModelRuntime(1, "gpu").apply())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("model.device=gpu, but PyTorch 2.7.1 sees no GPU")
                .hasMessageContaining("PYTORCH_LIBRARY_PATH")
                .hasMessageContaining("--device cpu");
        assertThat(new ModelRuntime(1, "auto").apply()).contains(" on cpu() ");
        assertThatThrownBy(() -> new ModelRuntime(1, "tpu"))
                .hasMessage("model.device must be one of [cpu, gpu, auto], got 'tpu'");
    }

    /** Runs only where PyTorch sees a GPU (none on this project's CI machines). */
    @Test
    void shouldMatchTheGoldenLogitsOnTheGpu() {
        assumeTrue(DjlRuntime.engine().getGpuCount() > 0, "no GPU visible to PyTorch");
        assertThat(new ModelRuntime(1, "gpu").apply()).contains(" on gpu(0) ");
        for (final String fixture : new String[] {"qwen2-tiny", "llama-tiny"}) {
            final Path dir = HfFixtures.checkpoint(fixture);
            final JsonNode expected = HfFixtures.expected(fixture);
            final boolean grad = DjlRuntime.setGradMode(false);
            try (NDManager manager = DjlRuntime.newManager();
                    HfDecoder model = HfDecoder.load(dir, manager)) {
                assertThat(manager.getDevice()).isEqualTo(Device.gpu());
                for (int s = 0; s < expected.get("sequences").size(); s++) {
                    final int[] ids = HfDecoderFixtureTest.ints(expected.get("sequences").get(s));
                    final double[][] golden =
                            HfDecoderFixtureTest.doubles(expected.get("logits").get(s));
                    try (NDManager step = manager.newSubManager()) {
                        assertThat(
                                        LogitChecks.maxAbsDiff(
                                                LogitChecks.full(model, step, ids), golden))
                                .isLessThan(1e-4);
                        assertThat(
                                        LogitChecks.maxAbsDiff(
                                                LogitChecks.incremental(model, step, ids, 1),
                                                golden))
                                .isLessThan(1e-4);
                    }
                }
            } finally {
                DjlRuntime.setGradMode(grad);
            }
        }
    }
}
