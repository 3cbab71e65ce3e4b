package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The tiny Hugging Face checkpoints with golden logits in this module's test resources ({@code
 * hf-tiny/}, see its README). Other modules read them from the world-model test-jar: there they are
 * copied once into the module's {@code target/}, since the decoder memory-maps real files.
 */
public final class HfFixtures {

    private static final String ROOT = "/hf-tiny";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path root;

    private HfFixtures() {}

    /** The directory of one fixture checkpoint, e.g. {@code qwen2-tiny}. */
    public static Path checkpoint(final String name) {
        final Path dir = root().resolve(name);
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no fixture checkpoint " + name + " in " + root());
        }
        return dir;
    }

    /** The fixture's {@code expected.json}. */
    static JsonNode expected(final String name) {
        try {
            return JSON.readTree(checkpoint(name).resolve("expected.json").toFile());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
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
    public static Path chatCheckpoint(final Path dir) throws IOException {
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(checkpoint("qwen2-tiny"))) {
            for (final Path p : (Iterable<Path>) files::iterator) {
                if (!p.getFileName().toString().equals("expected.json")) {
                    Files.copy(p, dir.resolve(p.getFileName()));
                }
            }
        }
        final ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("config.json").toFile());
        config.put("max_position_embeddings", 1024);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        final ObjectNode tokenizerConfig =
                (ObjectNode) JSON.readTree(dir.resolve(ChatTemplate.FILE).toFile());
        tokenizerConfig.put("chat_template", CHATML);
        JSON.writeValue(dir.resolve(ChatTemplate.FILE).toFile(), tokenizerConfig);
        return dir;
    }

    private static synchronized Path root() {
        if (root == null) {
            try {
                final URI uri = HfFixtures.class.getResource(ROOT).toURI();
                root = uri.getScheme().equals("jar") ? unpack(uri) : Path.of(uri);
            } catch (final IOException | URISyntaxException e) {
                throw new IllegalStateException("cannot read the hf-tiny fixtures", e);
            }
        }
        return root;
    }

    /**
     * Copies the fixtures out of the test-jar into this module's {@code target/} (once per JVM).
     */
    private static Path unpack(final URI uri) throws IOException {
        final Path target = Path.of("target", "hf-tiny").toAbsolutePath();
        try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of());
                Stream<Path> entries = Files.walk(jar.getPath(ROOT))) {
            for (final Path entry : (Iterable<Path>) entries::iterator) {
                final Path to = target.resolve(jar.getPath(ROOT).relativize(entry).toString());
                if (Files.isDirectory(entry)) {
                    Files.createDirectories(to);
                } else if (!Files.exists(to) || Files.size(to) != Files.size(entry)) {
                    // through a temporary name: test JVMs of one module may unpack at once
                    final Path part =
                            to.resolveSibling(
                                    to.getFileName() + "." + ProcessHandle.current().pid());
                    Files.copy(entry, part, StandardCopyOption.REPLACE_EXISTING);
                    Files.move(
                            part,
                            to,
                            StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }
}
