package dev.rwml.worldmodel.artifact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileArtifactStoreTest {

    @TempDir Path dir;

    @Test
    void shouldReadBackWhatWasPutUnderTheRunsDirectory() throws IOException {
        final FileArtifactStore store = new FileArtifactStore(dir);
        final byte[] bytes = ChannelFixtures.artifact(5000, 7);
        final URI uri = store.put("run-1", 4, bytes);
        assertThat(uri.getScheme()).isEqualTo("file");
        assertThat(Path.of(uri)).isEqualTo(dir.resolve("run-1").resolve("4.artifact"));
        assertThat(store.open(uri)).isEqualTo(bytes);
    }

    @Test
    void shouldReplaceTheArtifactWhenAVersionIsWrittenAgainAndLeaveNoTemporaryFiles()
            throws IOException {
        final FileArtifactStore store = new FileArtifactStore(dir);
        store.put("r", 1, new byte[] {1});
        final URI uri = store.put("r", 1, new byte[] {2, 3});
        assertThat(store.open(uri)).containsExactly(2, 3);
        try (var files = Files.list(dir.resolve("r"))) {
            assertThat(files)
                    .extracting(p -> p.getFileName().toString())
                    .containsExactly("1.artifact");
        }
    }

    @Test
    void shouldRefuseUrisOfOtherSchemes() {
        final FileArtifactStore store = new FileArtifactStore(dir);
        assertThatThrownBy(() -> store.open(URI.create("s3://bucket/r/1.artifact")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("file: URIs");
    }

    @Test
    void shouldRefuseRunNamesThatWouldEscapeTheRoot() {
        final FileArtifactStore store = new FileArtifactStore(dir);
        assertThatThrownBy(() -> store.put("../x", 1, new byte[1]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
