package dev.rwml.ops.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.hf.ChatTemplate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The tiny Hugging Face checkpoints of {@code shared/fixtures/hf-tiny}, beside the repository (or
 * where {@code -Drwml.hf.fixtures} says); never copied into it.
 */
final class HfFixtures {

    private HfFixtures() {}

    /** The directory of one fixture checkpoint, e.g. {@code qwen2-tiny}. */
    static Path checkpoint(final String name) {
        final String override = System.getProperty("rwml.hf.fixtures");
        final Path root =
                override != null
                        ? Path.of(override)
                        // the tests run in ops/cli: the repository root is two levels up
                        : Path.of(System.getProperty("user.dir"))
                                .toAbsolutePath()
                                .getParent()
                                .getParent()
                                .resolveSibling("shared")
                                .resolve("fixtures")
                                .resolve("hf-tiny");
        return root.resolve(name);
    }

    private static final String CHATML =
            "{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' +"
                    + " message['content'] + '<|im_end|>' + '\\n' }}{%- endfor %}{%- if"
                    + " add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

    /**
     * A copy of the tiny Qwen2 fixture in {@code dir} with a ChatML template and 1024 positions:
     * its 128 do not hold the paper's prompt, and rotary positions have no learned table, so the
     * weights are unchanged.
     */
    static Path chatCheckpoint(final Path dir) throws IOException {
        Files.createDirectories(dir);
        try (var files = Files.list(checkpoint("qwen2-tiny"))) {
            for (final Path p : (Iterable<Path>) files::iterator) {
                if (!p.getFileName().toString().equals("expected.json")) {
                    Files.copy(p, dir.resolve(p.getFileName()));
                }
            }
        }
        final ObjectMapper json = new ObjectMapper();
        final ObjectNode config = (ObjectNode) json.readTree(dir.resolve("config.json").toFile());
        config.put("max_position_embeddings", 1024);
        json.writeValue(dir.resolve("config.json").toFile(), config);
        final ObjectNode tokenizerConfig =
                (ObjectNode) json.readTree(dir.resolve(ChatTemplate.FILE).toFile());
        tokenizerConfig.put("chat_template", CHATML);
        json.writeValue(dir.resolve(ChatTemplate.FILE).toFile(), tokenizerConfig);
        return dir;
    }
}
