package dev.rwml.ops.cli;

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
}
