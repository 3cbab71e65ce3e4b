package dev.rwml.pipeline.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.pipeline.bench.BenchState.Slice;
import dev.rwml.pipeline.bench.BenchState.Step;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench's resumable state: bench.properties and the done markers. */
class BenchStateTest {

    private static final Map<String, String> IDENTITY =
            Map.of("model", "tiny", "epochs", "1", "epsilon", "0.2");

    @TempDir Path dir;

    @Test
    void shouldReadBackTheSlicesItRecorded() throws IOException {
        final Slice first = new Slice(Map.of(0, 10L, 1, 4L), Map.of(0, 25L, 1, 9L));
        final Slice second = new Slice(Map.of(0, 25L, 1, 9L), Map.of(0, 31L, 1, 20L));
        final BenchState state = BenchState.resume(dir, IDENTITY);
        state.recordSlice(1, first);
        state.recordSlice(2, second);

        final BenchState resumed = BenchState.resume(dir, IDENTITY);

        assertThat(resumed.slice(1)).isEqualTo(first);
        assertThat(resumed.slice(2)).isEqualTo(second);
    }

    @Test
    void shouldKeepTheKeysAndValuesOfAFileAnEarlierBenchWrote() throws IOException {
        final String earlier =
                "#rwml bench: settings and the offsets of its data slices\n"
                        + "#Mon Mar 02 10:00:00 UTC 2026\n"
                        + "setting.epochs=1\n"
                        + "setting.epsilon=0.2\n"
                        + "setting.model=tiny\n"
                        + "setting.retired=kept\n"
                        + "slice-s1.from=0\\:10,1\\:4\n"
                        + "slice-s1.until=0\\:25,1\\:9\n";
        Files.writeString(dir.resolve(BenchState.FILE), earlier);

        final BenchState state = BenchState.resume(dir, IDENTITY);

        assertThat(state.slice(1))
                .isEqualTo(new Slice(Map.of(0, 10L, 1, 4L), Map.of(0, 25L, 1, 9L)));
        assertThat(properties(dir.resolve(BenchState.FILE))).isEqualTo(properties(earlier));
    }

    @Test
    void shouldWriteTheOffsetsAsPartitionOffsetPairsInPartitionOrder() throws IOException {
        BenchState.resume(dir, IDENTITY)
                .recordSlice(3, new Slice(Map.of(1, 9L, 0, 25L), Map.of(1, 12L, 0, 30L)));

        assertThat(properties(dir.resolve(BenchState.FILE)))
                .containsEntry("slice-s3.from", "0:25,1:9")
                .containsEntry("slice-s3.until", "0:30,1:12")
                .containsEntry("setting.model", "tiny");
    }

    @Test
    void shouldRefuseToResumeWithOtherSettings() throws IOException {
        BenchState.resume(dir, IDENTITY);

        assertThatThrownBy(() -> BenchState.resume(dir, Map.of("model", "small")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "the bench in "
                                + dir
                                + " was started with model=tiny, not small; resume it with the"
                                + " same options or use another --dir");
    }

    @Test
    void shouldSayWhatToDoWithAFileItCannotRead() throws IOException {
        Files.writeString(dir.resolve(BenchState.FILE), "slice-s1.from=0\\:10\nnotes=mine\n");

        assertThatThrownBy(() -> BenchState.resume(dir, IDENTITY))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("notes")
                .hasMessageEndingWith("start the bench again in an empty --dir");
    }

    @Test
    void shouldSayWhatToDoWhenASliceWasNotRecorded() throws IOException {
        final BenchState state = BenchState.resume(dir, IDENTITY);

        assertThatThrownBy(() -> state.slice(3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no offsets of seed 3's slice")
                .hasMessageEndingWith("start the bench again in an empty --dir");
    }

    @Test
    void shouldRefuseASliceWithOnlyOneEnd() throws IOException {
        Files.writeString(dir.resolve(BenchState.FILE), "slice-s1.from=0\\:10\n");

        assertThatThrownBy(() -> BenchState.resume(dir, IDENTITY))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("seed 1's slice lacks one of its ends");
    }

    @Test
    void shouldReadTheValueADoneMarkerHolds() throws IOException {
        final BenchState state = BenchState.resume(dir, IDENTITY);
        final Step step = Step.arm(Arm.RWML_NO_FILTER, 2);
        assertThat(state.done(step)).isEmpty();

        state.markDone(step, "bench-rwml-nofilter-s2-r2");

        assertThat(state.done(step)).contains("bench-rwml-nofilter-s2-r2");
        assertThat(dir.resolve("done").resolve("arm-rwml-nofilter-s2"))
                .hasContent("bench-rwml-nofilter-s2-r2\n");
        assertThat(Step.slice(4).name()).isEqualTo("slice-s4");
    }

    private static Properties properties(final Path file) throws IOException {
        final Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    private static Properties properties(final String text) throws IOException {
        final Properties p = new Properties();
        p.load(new StringReader(text));
        return p;
    }
}
