package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.worldmodel.hf.HfFixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code rwml model logits} against the golden logits of the world-model test fixtures ({@code
 * hf-tiny}), which two independent implementations computed: every logit with {@code --json}, the
 * top logit per position in text, and a clear refusal of an id outside the vocabulary.
 */
class ModelLogitsCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args) {
        final CommandLine cli = Rwml.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen2-tiny", "llama-tiny"})
    void shouldPrintTheLogitsTheIndependentImplementationsComputed(final String name)
            throws Exception {
        final Path dir = HfFixtures.checkpoint(name);
        final JsonNode expected = JSON.readTree(dir.resolve("expected.json").toFile());
        final JsonNode sequence = expected.get("sequences").get(1);
        final List<String> ids = new ArrayList<>();
        sequence.forEach(id -> ids.add(id.asText()));

        assertThat(
                        run(
                                "model",
                                "logits",
                                "--hf",
                                dir.toString(),
                                "--ids",
                                String.join(",", ids),
                                "--json"))
                .as(err.toString())
                .isZero();
        final JsonNode printed = JSON.readTree(out.toString());
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

        out.getBuffer().setLength(0);
        assertThat(
                        run(
                                "model",
                                "logits",
                                "--hf",
                                dir.toString(),
                                "--ids",
                                String.join(",", ids),
                                "--top",
                                "1"))
                .isZero();
        final String[] lines = out.toString().split("\n");
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
        assertThat(
                        run(
                                "model",
                                "logits",
                                "--hf",
                                HfFixtures.checkpoint("qwen2-tiny").toString(),
                                "--ids",
                                "5,384"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("token id 384 is outside the vocabulary of 384");
        assertThat(run("model", "logits", "--hf", HfFixtures.checkpoint("qwen2-tiny").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("give exactly one of --ids and --text");
    }
}
