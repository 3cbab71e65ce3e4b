package dev.rwml.ops.cli;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.PrefixLogits;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml model logits}: a Hugging Face checkpoint's next-token logits after every prefix of
 * some ids, printed to check the decoder against another implementation.
 */
@Command(
        name = "logits",
        footer = {
            "",
            "Examples:",
            "  ./rwml model logits --hf /models/Qwen2.5-0.5B-Instruct --ids 1,2,3 --json",
            "  ./rwml model logits --hf /models/Qwen2.5-0.5B-Instruct --text 'Task: heat an egg'"
        },
        mixinStandardHelpOptions = true,
        description = {
            "Load a Hugging Face checkpoint directory as the stages do (float32) and print the"
                    + " next-token logits after every prefix of the given ids, to compare"
                    + " with any implementation you trust. No cluster is needed.",
            "Text output shows the top logits per position; --json prints every logit."
        })
final class ModelLogitsCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--hf",
            required = true,
            paramLabel = "DIR",
            description = "The checkpoint directory.")
    private Path dir;

    @Option(
            names = "--ids",
            split = ",",
            paramLabel = "ID",
            description = "Token ids, comma-separated (no BOS is added).")
    private List<Long> ids;

    @Option(
            names = "--text",
            paramLabel = "TEXT",
            description = "Text to encode with the checkpoint's tokenizer instead of --ids.")
    private String text;

    @Option(
            names = "--top",
            defaultValue = "5",
            paramLabel = "K",
            description = "Logits shown per position in text output (default: ${DEFAULT-VALUE}).")
    private int top;

    @Option(names = "--json", description = "Print every logit as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        if ((ids == null) == (text == null)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "give exactly one of --ids and --text");
        }
        final PrintWriter out = spec.commandLine().getOut();
        try (NDManager manager = DjlRuntime.newManager();
                HfModel model = HfModel.load(dir, manager)) {
            final long[] tokens =
                    text != null
                            ? Arrays.stream(model.tokenizer().encode(text)).asLongStream().toArray()
                            : ids.stream().mapToLong(Long::longValue).toArray();
            final int vocab = model.decoder().vocabSize();
            for (final long id : tokens) {
                if (id < 0 || id >= vocab) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(),
                            "token id " + id + " is outside the vocabulary of " + vocab);
                }
            }
            if (tokens.length == 0 || tokens.length > model.decoder().maxContext()) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "give 1 to "
                                + model.decoder().maxContext()
                                + " tokens, not "
                                + tokens.length);
            }
            final float[] logits = PrefixLogits.of(model.decoder(), manager, tokens);
            if (json) {
                printJson(out, model, tokens, logits, vocab);
            } else {
                printTop(out, model, tokens, logits, vocab);
            }
        }
        out.flush();
        return 0;
    }

    private void printJson(
            final PrintWriter out,
            final HfModel model,
            final long[] tokens,
            final float[] logits,
            final int vocab)
            throws Exception {
        final ObjectMapper mapper = new ObjectMapper();
        final ObjectNode root = mapper.createObjectNode();
        root.put("checkpoint", dir.toAbsolutePath().toString());
        root.put("architecture", model.decoder().config().architecture().className());
        root.put("vocabSize", vocab);
        root.put("dtype", "float32");
        final ArrayNode idArray = root.putArray("ids");
        for (final long id : tokens) {
            idArray.add(id);
        }
        root.put("positions", "logits[t] are the next-token logits after ids[0..t]");
        final ArrayNode rows = root.putArray("logits");
        for (int t = 0; t < tokens.length; t++) {
            final ArrayNode row = rows.addArray();
            for (int v = 0; v < vocab; v++) {
                row.add(logits[t * vocab + v]);
            }
        }
        out.println(mapper.writeValueAsString(root));
    }

    private void printTop(
            final PrintWriter out,
            final HfModel model,
            final long[] tokens,
            final float[] logits,
            final int vocab) {
        out.printf(
                Locale.ROOT,
                "%s from %s: %d positions, vocabulary %d, float32 on %s%n",
                model.decoder().config().architecture().className(),
                dir,
                tokens.length,
                vocab,
                DjlRuntime.engine().defaultDevice());
        for (int t = 0; t < tokens.length; t++) {
            final int offset = t * vocab;
            final Integer[] order = new Integer[vocab];
            for (int v = 0; v < vocab; v++) {
                order[v] = v;
            }
            Arrays.sort(order, (a, b) -> Float.compare(logits[offset + b], logits[offset + a]));
            final StringBuilder line = new StringBuilder();
            for (int k = 0; k < Math.min(top, vocab); k++) {
                line.append(
                        String.format(
                                Locale.ROOT, " %d:%.6f", order[k], logits[offset + order[k]]));
            }
            out.printf(Locale.ROOT, "position %d (id %d) top%s%n", t, tokens[t], line);
        }
    }
}
