package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The tiny Hugging Face checkpoints with golden logits in {@code shared/fixtures/hf-tiny}, beside
 * the repository (CI lays a copy of {@code shared/} next to its clone); never copied into it.
 */
public final class HfFixtures {

    /** Overrides where the fixtures are, for a checkout laid out differently. */
    static final String PROPERTY = "rwml.hf.fixtures";

    private static final ObjectMapper JSON = new ObjectMapper();

    private HfFixtures() {}

    /** The directory of one fixture checkpoint, e.g. {@code qwen2-tiny}. */
    public static Path checkpoint(final String name) {
        final Path dir = root().resolve(name);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException(
                    "fixture "
                            + dir.toAbsolutePath()
                            + " not found: lay shared/ beside the repository or set -D"
                            + PROPERTY);
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

    private static Path root() {
        final String override = System.getProperty(PROPERTY);
        if (override != null) {
            return Path.of(override);
        }
        // Surefire runs in the module directory: the repository root is its parent.
        final Path module = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        return module.getParent().resolveSibling("shared").resolve("fixtures").resolve("hf-tiny");
    }
}
