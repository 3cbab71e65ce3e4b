package dev.rwml.env.imports;

import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.produce.EpisodeClock;
import dev.rwml.env.produce.Progress;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionPublisher;
import dev.rwml.env.recorded.MalformedLineException;
import dev.rwml.env.recorded.RecordedEpisode;
import dev.rwml.env.recorded.TrajectoryParser;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Imports recorded trajectories (JSONL, one episode per line: {@link TrajectoryParser}) into {@code
 * rwml.transitions}, keyed by transitionId like live transitions.
 *
 * <p>Each episode is replayed through the {@link EpisodeRunner}, so imported transitions carry the
 * same history window and fields as live ones; only the ids come from the file: episode {@code
 * <episode_id>}, transition {@code <env>/<episode_id>/<step>}. Malformed lines are skipped with
 * their line number and reason (logged and returned) and the rest is imported. Blank lines are
 * ignored.
 */
public final class TrajectoryImporter {

    private static final Logger LOG = LoggerFactory.getLogger(TrajectoryImporter.class);

    private final ImportConfig config;
    private final MeterRegistry meters;
    private final ProgressListener listener;

    public TrajectoryImporter(
            final ImportConfig config,
            final MeterRegistry meters,
            final ProgressListener listener) {
        this.config = Objects.requireNonNull(config, "config");
        this.meters = Objects.requireNonNull(meters, "meters");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Imports {@code config}'s file without progress reports: the library entry point. */
    public static ImportResult run(final ImportConfig config) {
        return new TrajectoryImporter(config, new SimpleMeterRegistry(), ProgressListener.NONE)
                .run();
    }

    /** Reads the whole file, publishes its valid episodes and returns the summary. */
    public ImportResult run() {
        if (!Files.isRegularFile(config.file()) || !Files.isReadable(config.file())) {
            throw new IllegalArgumentException(
                    "cannot read "
                            + config.file().toAbsolutePath()
                            + ": no such file or not readable; give the path of a JSONL file"
                            + " with one episode per line");
        }
        final long started = System.nanoTime();
        final TrajectoryParser parser = new TrajectoryParser(config.envName(), config.split());
        final List<SkippedLine> skipped = new ArrayList<>();
        long episodes = 0;
        long lastReport = started;
        final long reportEvery = config.progressInterval().toNanos();
        try (TransitionPublisher publisher =
                        TransitionPublisher.open(config.kafka(), meters, "import");
                BufferedReader reader =
                        Files.newBufferedReader(config.file(), StandardCharsets.UTF_8)) {
            int lineNumber = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                final RecordedEpisode episode;
                try {
                    episode = parser.parse(lineNumber, line);
                } catch (MalformedLineException e) {
                    LOG.warn("skipping {} of {}", e.getMessage(), config.file());
                    skipped.add(new SkippedLine(e.lineNumber(), e.reason()));
                    continue;
                }
                final Clock clock = EpisodeClock.forEpisode(config.baseTime(), episodes);
                episode.transitions(config.historyTurns(), clock).forEach(publisher::send);
                publisher.episodeSent(episode.env());
                episodes++;
                final long now = System.nanoTime();
                if (now - lastReport >= reportEvery) {
                    lastReport = now;
                    listener.update(progress(episodes, publisher, started));
                }
            }
            publisher.flush();
            final ImportResult result =
                    new ImportResult(
                            episodes,
                            publisher.acknowledged(),
                            publisher.errors(),
                            skipped,
                            Duration.ofNanos(System.nanoTime() - started));
            listener.finished(progress(episodes, publisher, started));
            LOG.info("{} from {}", result.summary(), config.file());
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read " + config.file() + ": " + e.getMessage() + "; check the path", e);
        }
    }

    private static Progress progress(
            final long episodes, final TransitionPublisher publisher, final long started) {
        return new Progress(
                episodes,
                publisher.acknowledged(),
                publisher.errors(),
                Duration.ofNanos(System.nanoTime() - started));
    }
}
