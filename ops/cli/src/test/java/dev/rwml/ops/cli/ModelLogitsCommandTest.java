package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.ops.cli.CliRunner.Result;
import dev.rwml.worldmodel.hf.HfFixtures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code rwml model logits} against the golden logits of the world-model test fixtures ({@code
 * hf-tiny}), which two independent implementations computed: every logit with {@code --json}, the
 * top logit per position in text, and a clear refusal of an id outside the vocabulary.
 */
class ModelLogitsCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldPrintTheLogitsTheIndependentImplementationsComputed(final String name)
            throws Exception {
        final Path dir = HfFixtures.checkpoint(name);
        final JsonNode expected = JSON.readTree(dir.resolve("expected.json").toFile());
        final JsonNode sequence = expected.get("sequences").get(1);
        final List<String> ids = new ArrayList<>();
        sequence.forEach(id -> ids.add(id.asText()));

        final Result json =
                rwml(
                        "model",
                        "logits",
                        "--hf",
                        dir.toString(),
                        "--ids",
                        String.join(",", ids),
                        "--json");
        assertThat(json.code()).as(json.err()).isZero();
        final JsonNode printed = JSON.readTree(json.out());
        assertThat(printed.get("ids").size()).isEqualTo(ids.size());
        final JsonNode golden = expected.get("logits").get(1);
        double maxDiff = 0;
        for (int t = 0; t < golden.size(); t++) {
            assertThat(printed.get("logits").get(t).size()).isEqualTo(golden.get(t).size());
            for (int v = 0; v < golden.get(t).size(); v++) {
                maxDiff =
                        Math.max(
                                maxDiff,
                                Math.abs(
                                        printed.get("logits").get(t).get(v).asDouble()
                                                - golden.get(t).get(v).asDouble()));
            }
        }
        assertThat(maxDiff).isLessThan(1e-4);

        final Result top =
                rwml(
                        "model",
                        "logits",
                        "--hf",
                        dir.toString(),
                        "--ids",
                        String.join(",", ids),
                        "--top",
                        "1");
        assertThat(top.code()).isZero();
        final String[] lines = top.out().split("\n");
        assertThat(lines[0]).contains(ids.size() + " positions");
        for (int t = 0; t < golden.size(); t++) {
            int best = 0;
            for (int v = 1; v < golden.get(t).size(); v++) {
                if (golden.get(t).get(v).asDouble() > golden.get(t).get(best).asDouble()) {
                    best = v;
                }
            }
            assertThat(lines[t + 1])
                    .startsWith("position " + t + " (id " + ids.get(t) + ") top " + best + ":");
        }
    }

    @org.junit.jupiter.api.Test
    void shouldRefuseAnIdOutsideTheVocabulary() {
        final String hf = HfFixtures.checkpoint("qwen2-tiny").toString();
        final Result outside = rwml("model", "logits", "--hf", hf, "--ids", "5,384");
        assertThat(outside.code()).isEqualTo(2);
        assertThat(outside.err()).contains("token id 384 is outside the vocabulary of 384");
        final Result neither = rwml("model", "logits", "--hf", hf);
        assertThat(neither.code()).isEqualTo(2);
        assertThat(neither.err()).contains("give exactly one of --ids and --text");
    }
}
