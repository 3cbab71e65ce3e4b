package dev.rwml.pipeline.watch;

import dev.rwml.events.ModelVersion;
import dev.rwml.pipeline.deadletters.DeadLetterEntry;
import dev.rwml.pipeline.deadletters.DeadLetterStore;
import dev.rwml.pipeline.watch.LagMeter.TopicOffsets;
import dev.rwml.pipeline.watch.RunObserver.Observation;
import dev.rwml.pipeline.watch.RunProgress.PassRate;
import dev.rwml.pipeline.watch.RunStatus.DeadLetterBrief;
import dev.rwml.pipeline.watch.RunStatus.DeadLetterSummary;
import dev.rwml.pipeline.watch.RunStatus.TopicRate;
import dev.rwml.pipeline.watch.RunStatus.VersionInfo;
import dev.rwml.runtime.settings.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's status for {@code rwml status}: the {@link RunObserver}'s lag, versions and pass rates,
 * topic growth between two calls (rates) and the latest dead letters. One instance serves repeated
 * {@link #collect} calls (the web page polls it); it is thread-safe.
 */
public final class StatusCollector implements AutoCloseable {

    private static final int LATEST_DEAD_LETTERS = 5;

    private final String run;
    private final RunObserver observer;
    private final DeadLetterStore deadLetters;
    private Map<String, Long> previousEnds = Map.of();
    private long previousNanos;

    /** A collector for {@code run}'s stages with their default group ids. */
    public StatusCollector(final String run, final Connection connection) {
        this(run, connection, LagMeter.Stage.defaults(run));
    }

    /** A collector measuring the given stages (for stages started with other group ids). */
    public StatusCollector(
            final String run, final Connection connection, final List<LagMeter.Stage> stages) {
        this.run = run;
        this.observer = new RunObserver(run, connection, stages);
        this.deadLetters = new DeadLetterStore(connection);
    }

    /** Reads the run's status now; rates compare with the previous call's end offsets. */
    public synchronized RunStatus collect() {
        final long nanos = System.nanoTime();
        final Observation o = observer.observe();
        final Map<String, Long> ends = new HashMap<>();
        final List<TopicRate> rates = new ArrayList<>();
        final double seconds = (nanos - previousNanos) / 1e9;
        for (final TopicOffsets t : o.topics()) {
            ends.put(t.topic(), t.end());
            final Long before = previousEnds.get(t.topic());
            final Double rate =
                    before == null || seconds <= 0 ? null : Math.max(0, t.end() - before) / seconds;
            rates.add(new TopicRate(t.topic(), t.exists(), t.records(), t.end(), rate));
        }
        previousEnds = ends;
        previousNanos = nanos;
        return new RunStatus(
                run,
                o.at(),
                o.stages(),
                versionInfos(o),
                rates,
                deadLetterSummaries(o),
                o.filter().judged() == 0 ? null : o.filter());
    }

    private static List<VersionInfo> versionInfos(final Observation o) {
        final List<VersionInfo> infos = new ArrayList<>();
        for (final ModelVersion v : o.versions().values()) {
            final ModelVersion parent =
                    v.getParentVersion() == null ? null : o.versions().get(v.getParentVersion());
            Double groupsPerSecond = null;
            if (parent != null) {
                final double seconds =
                        Duration.between(parent.getCreatedAt(), v.getCreatedAt()).toMillis() / 1e3;
                if (seconds > 0) {
                    groupsPerSecond = v.getCounters().getGroups() / seconds;
                }
            }
            final PassRate generated = o.passRates().get(v.getVersion());
            final long rewarded = generated == null ? 0 : generated.groups();
            infos.add(
                    new VersionInfo(
                            v.getVersion(),
                            v.getParentVersion(),
                            v.getCreatedAt(),
                            v.getObjective(),
                            v.getCounters().getSteps(),
                            v.getCounters().getGroups(),
                            groupsPerSecond,
                            finite(v.getMetrics()),
                            rewarded,
                            rewarded == 0 ? null : generated.mean(),
                            rewarded == 0 ? 0 : generated.easy(),
                            rewarded == 0
                                    ? null
                                    : Duration.between(
                                                            v.getCreatedAt(),
                                                            generated.firstGeneratedAt())
                                                    .toMillis()
                                            / 1e3));
        }
        return infos;
    }

    /** Metrics without NaN or infinities, which neither JSON nor a chart can show. */
    private static Map<String, Double> finite(final Map<String, Double> metrics) {
        final Map<String, Double> out = new TreeMap<>();
        metrics.forEach(
                (k, value) -> {
                    if (value != null && Double.isFinite(value)) {
                        out.put(k, value);
                    }
                });
        return out;
    }

    private List<DeadLetterSummary> deadLetterSummaries(final Observation o) {
        final String topic = DeadLetterStore.topicOf(run);
        final TopicOffsets t = o.topic(topic);
        if (!t.exists()) {
            return List.of();
        }
        final List<DeadLetterBrief> latest = new ArrayList<>();
        if (t.records() > 0) {
            for (final DeadLetterEntry entry : deadLetters.latest(topic, LATEST_DEAD_LETTERS)) {
                latest.add(
                        new DeadLetterBrief(
                                entry.offset(),
                                entry.stage(),
                                entry.reason(),
                                entry.source(),
                                entry.failedAt(),
                                shorten(entry.message(), 160)));
            }
        }
        return List.of(new DeadLetterSummary(topic, t.records(), latest));
    }

    private static String shorten(final String text, final int max) {
        if (text == null) {
            return "";
        }
        final String line = text.replace('\n', ' ');
        return line.length() <= max ? line : line.substring(0, max) + "...";
    }

    @Override
    public synchronized void close() {
        observer.close();
        deadLetters.close();
    }
}
