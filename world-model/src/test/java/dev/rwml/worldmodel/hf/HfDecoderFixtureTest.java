package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.checkpoint.MappedSafetensors;
import dev.rwml.worldmodel.model.Masks;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.SharedPromptBatch;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** Rows of different lengths left-padded in one batch, as the generator lays prompts. */
    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldGiveLeftPaddedRowsTheirOwnLogits(final String fixture) {
        final JsonNode expected = HfFixtures.expected(fixture);
        final int[] shortRow = ints(expected.get("sequences").get(1));
        final int[] longRow = Arrays.copyOf(ints(expected.get("sequences").get(2)), 12);
        final int length = longRow.length;
        final int pad = length - shortRow.length;
        final long[] ids = new long[2 * length];
        final long[] positions = new long[2 * length];
        for (int t = 0; t < length; t++) {
            ids[t] = t < pad ? 0 : shortRow[t - pad];
            positions[t] = Math.max(0, t - pad);
            ids[length + t] = longRow[t];
            positions[length + t] = t;
        }
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(HfFixtures.checkpoint(fixture), manager)) {
            final int vocab = model.config().vocabSize();
            final float[] logits =
                    model.forward(
                                    manager.create(ids, new Shape(2, length)),
                                    manager.create(positions, new Shape(2, length)),
                                    Masks.causalLeftPadded(manager, new int[] {pad, 0}, length),
                                    null)
                            .toFloatArray();
            final float[] shortLogits = Arrays.copyOfRange(logits, pad * vocab, length * vocab);
            final float[] longLogits =
                    Arrays.copyOfRange(logits, length * vocab, 2 * length * vocab);
            final double[][] goldenLong =
                    Arrays.copyOf(doubles(expected.get("logits").get(2)), length);
            assertThat(LogitChecks.maxAbsDiff(shortLogits, doubles(expected.get("logits").get(1))))
                    .isLessThan(TOLERANCE);
            assertThat(LogitChecks.maxAbsDiff(longLogits, goldenLong)).isLessThan(TOLERANCE);
        } finally {
            DjlRuntime.setGradMode(grad);
        }
    }

    /**
     * What the scorer and the trainer read: next-token log-probs of a whole sequence in one pass
     * and with its prompt shared, and the largest |logit| of the trainer's diagnostics.
     */
    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldScoreTokensAsTheGoldenLogitsDo(final String fixture) {
        final JsonNode expected = HfFixtures.expected(fixture);
        final int[] seq = ints(expected.get("sequences").get(2));
        final double[][] golden = doubles(expected.get("logits").get(2));
        final List<SequenceBatch.Pair> pairs =
                List.of(
                        new SequenceBatch.Pair(
                                new int[] {seq[0]}, Arrays.copyOfRange(seq, 1, seq.length)));
        final boolean grad = DjlRuntime.setGradMode(false);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder model = HfDecoder.load(HfFixtures.checkpoint(fixture), manager)) {
            final float[] packed =
                    SequenceBatch.of(pairs, 0, seq.length).logProbs(model, manager).toFloatArray();
            final SharedPromptBatch shared = SharedPromptBatch.of(pairs, 0, seq.length);
            final float[] sharedLogProbs = shared.logProbs(model, manager).toFloatArray();
            double maxAbs = 0;
            for (int t = 0; t < seq.length - 1; t++) {
                double max = Double.NEGATIVE_INFINITY;
                for (final double v : golden[t]) {
                    max = Math.max(max, v);
                }
                double sum = 0;
                for (final double v : golden[t]) {
                    sum += Math.exp(v - max);
                    maxAbs = Math.max(maxAbs, Math.abs(v));
                }
                final double want = golden[t][seq[t + 1]] - max - Math.log(sum);
                assertThat((double) packed[t]).isCloseTo(want, within(TOLERANCE));
                assertThat((double) sharedLogProbs[t]).isCloseTo(want, within(TOLERANCE));
            }
            assertThat(shared.logits(model, manager).abs().max().getFloat())
                    .isCloseTo((float) maxAbs, within((float) TOLERANCE));
        } finally {
            DjlRuntime.setGradMode(grad);
        }
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

    static int[] ints(final JsonNode array) {
        final int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    static double[][] doubles(final JsonNode rows) {
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
