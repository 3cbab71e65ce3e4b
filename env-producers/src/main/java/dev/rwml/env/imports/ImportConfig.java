package dev.rwml.env.imports;

import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.recorded.TrajectoryParser;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link TrajectoryImporter} imports and where it publishes.
 *
 * <p>Event times: the file records none, so the episode on line {@code k} (counting valid lines
 * from 0) gets {@code baseTime + k minutes + step seconds}, as live runs do ({@link
 * dev.rwml.env.produce.EpisodeClock}); importing a file twice with the same base time gives the
 * same records.
 *
 * @param file the JSONL file, one episode per line ({@link TrajectoryParser} documents the format)
 * @param envName when present, overrides every line's {@code env}
 * @param split when present, overrides every line's {@code split}
 * @param historyTurns H, the earlier turns each transition carries
 * @param baseTime the event time of the first step of the first episode
 * @param progressInterval how often the progress listener hears from the import
 * @param kafka where to publish
 */
public record ImportConfig(
        Path file,
        Optional<String> envName,
        Optional<String> split,
        int historyTurns,
        Instant baseTime,
        Duration progressInterval,
        KafkaSettings kafka) {

    public ImportConfig {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(envName, "envName");
        Objects.requireNonNull(split, "split");
        if (historyTurns < 0) {
            throw new IllegalArgumentException("history must be >= 0 turns, got " + historyTurns);
        }
        Objects.requireNonNull(baseTime, "baseTime");
        Objects.requireNonNull(progressInterval, "progressInterval");
        Objects.requireNonNull(kafka, "kafka");
    }

    /** A file with H = 2, the lines' own env and split, event times from now. */
    public static ImportConfig of(final Path file, final KafkaSettings kafka) {
        return new ImportConfig(
                file,
                Optional.empty(),
                Optional.empty(),
                EpisodeRunner.DEFAULT_HISTORY_TURNS,
                Instant.now(),
                Duration.ofSeconds(5),
                kafka);
    }
}
