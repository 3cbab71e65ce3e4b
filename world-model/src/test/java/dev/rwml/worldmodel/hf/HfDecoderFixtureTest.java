package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rwml.worldmodel.DjlRuntime;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decoder against the golden logits of the tiny Qwen2 and Llama fixtures (two independent
 * implementations agree on them within 2e-7): every logit of every position of every sequence.
 */
class HfDecoderFixtureTest {

    private static final Logger LOG = LoggerFactory.getLogger(HfDecoderFixtureTest.class);
    private static final double TOLERANCE = 1e-4;

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldMatchEveryGoldenLogitInOnePassAndThroughTheKvCache(final String fixture) {
        final Path dir = HfFixtures.checkpoint(fixture);
        final JsonNode expected = HfFixtures.expected(fixture);
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(dir, manager)) {
            double worstFull = 0;
            double worstCached = 0;
            for (int s = 0; s < expected.get("sequences").size(); s++) {
                final int[] ids = ints(expected.get("sequences").get(s));
                final double[][] golden = doubles(expected.get("logits").get(s));
                try (NDManager step = manager.newSubManager()) {
                    worstFull =
                            Math.max(
                                    worstFull,
                                    LogitChecks.maxAbsDiff(
                                            LogitChecks.full(model, step, ids), golden));
                    worstCached =
                            Math.max(
                                    worstCached,
                                    LogitChecks.maxAbsDiff(
                                            LogitChecks.incremental(model, step, ids, 1), golden));
                }
            }
            LOG.info(
                    "{}: max |logit - golden| {} in one pass, {} through the KV cache",
                    fixture,
                    worstFull,
                    worstCached);
            assertThat(worstFull).isLessThan(TOLERANCE);
            assertThat(worstCached).isLessThan(TOLERANCE);
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    /** The float64 reference the Qwen3 test relies on must itself reproduce the fixtures. */
    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldHaveAReferenceDecoderThatMatchesTheGoldenLogits(final String fixture) {
        final Path dir = HfFixtures.checkpoint(fixture);
        final JsonNode expected = HfFixtures.expected(fixture);
        final HfConfig config = HfConfig.load(dir);
        final ReferenceDecoder reference = new ReferenceDecoder(config, readAll(dir));
        double worst = 0;
        for (int s = 0; s < expected.get("sequences").size(); s++) {
            final double[][] golden = doubles(expected.get("logits").get(s));
            final double[][] mine = reference.logits(ints(expected.get("sequences").get(s)));
            for (int t = 0; t < golden.length; t++) {
                for (int v = 0; v < golden[t].length; v++) {
                    worst = Math.max(worst, Math.abs(mine[t][v] - golden[t][v]));
                }
            }
        }
        LOG.info("{}: reference max |logit - golden| {}", fixture, worst);
        // the golden values are rounded to 6 significant digits, the largest |logit| is about 1
        assertThat(worst).isLessThan(1e-5);
    }

    static Map<String, float[]> readAll(final Path dir) {
        final Map<String, float[]> out = new LinkedHashMap<>();
        try (MappedSafetensors st = MappedSafetensors.open(dir)) {
            for (final String name : st.entries().keySet()) {
                out.put(name, st.readFloats(name));
            }
        }
        return out;
    }

    private static int[] ints(final JsonNode array) {
        final int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    private static double[][] doubles(final JsonNode rows) {
        final double[][] out = new double[rows.size()][];
        for (int t = 0; t < out.length; t++) {
            final JsonNode row = rows.get(t);
            out[t] = new double[row.size()];
            for (int v = 0; v < out[t].length; v++) {
                out[t][v] = row.get(v).asDouble();
            }
        }
        return out;
    }
}
