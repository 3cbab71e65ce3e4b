package dev.rwml.worldmodel.artifact;

import dev.rwml.schemas.topics.RunName;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;

/**
 * An {@link ArtifactStore} on a directory (local disk or a shared mount), one file per version
 * under {@code <root>/<run>/<version>.artifact}, addressed by {@code file:} URIs.
 */
public final class FileArtifactStore implements ArtifactStore {

    private final Path root;

    /** Creates a store rooted at {@code root}; the directory is created on the first put. */
    public FileArtifactStore(final Path root) {
        this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
    }

    @Override
    public URI put(final String run, final long version, final byte[] bytes) throws IOException {
        RunName.of(run);
        if (version < 0) {
            throw new IllegalArgumentException("version must be >= 0, got " + version);
        }
        final Path dir = Files.createDirectories(root.resolve(run));
        final Path target = dir.resolve(version + ".artifact");
        // Write beside the target and move, so a reader never sees half an artifact.
        final Path tmp = Files.createTempFile(dir, version + "-", ".part");
        try {
            Files.write(tmp, bytes);
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target.toUri();
    }

    @Override
    public byte[] open(final URI uri) throws IOException {
        if (!"file".equals(uri.getScheme())) {
            throw new IOException(
                    "FileArtifactStore reads only file: URIs, got "
                            + uri
                            + "; configure the ArtifactStore that wrote it");
        }
        return Files.readAllBytes(Path.of(uri));
    }

    /** The directory this store writes under. */
    public Path root() {
        return root;
    }
}
