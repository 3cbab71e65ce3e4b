package dev.rwml.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SliceBoundTest {

    @TempDir Path dir;

    @Test
    void shouldParseKeywordsTimesAndInlineOffsets() {
        assertThat(SliceBound.parse("earliest")).isEqualTo(SliceBound.EARLIEST);
        assertThat(SliceBound.parse("LATEST")).isEqualTo(SliceBound.LATEST);
        assertThat(SliceBound.parse("2026-11-30T10:00:00Z").time())
                .isEqualTo(Instant.parse("2026-11-30T10:00:00Z"));
        assertThat(SliceBound.parse("0:120, 1:98").offsets()).isEqualTo(Map.of(0, 120L, 1, 98L));
    }

    @Test
    void shouldReadAnOffsetsFileWithOnePartitionPerLine() throws Exception {
        final Path file = dir.resolve("until.txt");
        Files.writeString(file, "# slice end\n0:7\n\n1:9\n");
        assertThat(SliceBound.parse(file.toString()).offsets()).isEqualTo(Map.of(0, 7L, 1, 9L));
    }

    @Test
    void shouldRejectAPartitionNamedTwiceOrAnUnknownForm() throws Exception {
        final Path file = dir.resolve("bad.txt");
        Files.writeString(file, "0:7\n0:9\n");
        assertThatThrownBy(() -> SliceBound.parse(file.toString()))
                .hasMessageContaining("partition 0 twice");
        assertThatThrownBy(() -> SliceBound.parse("yesterday"))
                .hasMessageContaining("not earliest, latest, an ISO-8601 instant");
    }

    @Test
    void shouldWriteOffsetsInTheStopAtSyntax() {
        assertThat(TransitionSlice.text(Map.of(1, 98L, 0, 120L))).isEqualTo("0:120,1:98");
    }
}
