package dev.rwml.ops.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Removes directory trees the embedded cluster, the demo and their tests leave behind. */
public final class Directories {

    private Directories() {}

    /** Deletes {@code dir} and everything under it; nothing happens when it does not exist. */
    public static void deleteRecursively(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        final List<Path> deepestFirst;
        try (Stream<Path> paths = Files.walk(dir)) {
            deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
        }
        for (final Path p : deepestFirst) {
            Files.delete(p);
        }
    }
}
