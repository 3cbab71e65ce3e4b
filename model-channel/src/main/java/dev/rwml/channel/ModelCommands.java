package dev.rwml.channel;

import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.ArtifactStore;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The library behind {@code rwml models list|watch|export --run R}: a run's versions with their
 * lineage and metrics, a live feed of new verified versions, and a version's artifact on disk.
 */
public final class ModelCommands {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private ModelCommands() {}

    /** Every committed version of the run, ascending. */
    public static List<ModelVersion> list(final Connection connection, final String run) {
        try (ModelChannel channel = ModelChannel.of(connection, run);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), TIMEOUT)) {
            return reader.manifests();
        }
    }

    /** One line per version: parent, objective, counters, key metrics and lineage. */
    public static String describe(final ModelVersion m) {
        final Map<String, Double> metrics = m.getMetrics();
        final String lineage =
                m.getLineage().stream()
                        .map(ModelCommands::range)
                        .collect(Collectors.joining(" ", "[", "]"));
        return String.format(
                Locale.ROOT,
                "v%d parent=%s %s %s steps=%d groups=%d tokens=%d droppedStale=%d"
                        + " skippedZeroAdv=%d meanReward=%s passRate=%s loss=%s kl=%s clip=%s"
                        + " gradNorm=%s staleness=%s size=%dB sha256=%s lineage=%s",
                m.getVersion(),
                m.getParentVersion() == null ? "-" : m.getParentVersion().toString(),
                m.getObjective(),
                m.getCreatedAt(),
                m.getCounters().getSteps(),
                m.getCounters().getGroups(),
                m.getCounters().getTokens(),
                m.getCounters().getDroppedStale(),
                m.getCounters().getSkippedZeroAdvantage(),
                fmt(metrics.get("meanReward")),
                fmt(metrics.get("passRate")),
                fmt(metrics.get("loss")),
                fmt(metrics.get("kl")),
                fmt(metrics.get("clipFraction")),
                fmt(metrics.get("gradNorm")),
                m.getStalenessHistogram(),
                m.getArtifact().getSizeBytes(),
                m.getArtifact()
                        .getSha256()
                        .substring(0, Math.min(12, m.getArtifact().getSha256().length())),
                lineage);
    }

    /**
     * Follows the run and reports each new verified version (and the waiting state) as a line;
     * close the result to stop.
     */
    public static AutoCloseable watch(
            final Connection connection,
            final String run,
            final Optional<ArtifactStore> store,
            final Consumer<String> lines) {
        final ModelChannel channel = ModelChannel.of(connection, run);
        lines.accept("waiting for version 0 of run " + run);
        final ModelFollower follower =
                ModelFollower.start(
                        channel,
                        store,
                        (artifact, versions) -> lines.accept(describe(artifact.manifest())),
                        Duration.ofMillis(500),
                        Optional.empty());
        return () -> {
            follower.close();
            channel.close();
        };
    }

    /**
     * Writes a version's verified artifact (the latest when {@code version} is empty) to {@code
     * <dir>/<run>-v<version>.zip} and returns the file.
     *
     * @throws ArtifactRejectedException when the version is missing, pruned or corrupt
     */
    public static Path export(
            final Connection connection,
            final String run,
            final OptionalLong version,
            final Optional<ArtifactStore> store,
            final Path dir)
            throws ArtifactRejectedException, IOException {
        try (ModelChannel channel = ModelChannel.of(connection, run);
                ModelChannelReader reader = new ModelChannelReader(channel, store, TIMEOUT)) {
            final VerifiedArtifact artifact;
            if (version.isPresent()) {
                artifact = reader.fetch(version.getAsLong());
            } else {
                artifact =
                        reader.latest()
                                .orElseThrow(
                                        () ->
                                                new ArtifactRejectedException(
                                                        run,
                                                        0,
                                                        "the run has no version yet; publish"
                                                                + " version 0 with `rwml model"
                                                                + " init`"));
            }
            Files.createDirectories(dir);
            final Path target = dir.resolve(run + "-v" + artifact.version() + ".zip");
            Files.write(target, artifact.bytes());
            return target;
        }
    }

    private static String range(final OffsetRange r) {
        return r.getTopic()
                + "/"
                + r.getPartition()
                + ":"
                + r.getFromOffset()
                + "-"
                + r.getUntilOffset();
    }

    private static String fmt(final Double d) {
        return d == null ? "-" : String.format(Locale.ROOT, "%.4f", d);
    }
}
