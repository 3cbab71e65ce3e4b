package dev.rwml.pipeline.watch;

import dev.rwml.events.ModelVersion;
import dev.rwml.pipeline.watch.LagMeter.Stage;
import dev.rwml.pipeline.watch.LagMeter.TopicOffsets;
import dev.rwml.pipeline.watch.RunProgress.FilterCounts;
import dev.rwml.pipeline.watch.RunProgress.PassRate;
import dev.rwml.pipeline.watch.RunStatus.StageLag;
import dev.rwml.runtime.settings.Connection;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The one reader of a run's lag and progress together, watching it from the outside as any tool
 * would; used by {@code rwml status} and the demo's progress. It pairs a {@link LagMeter} with a
 * {@link RunProgress}. Thread-safe.
 */
public final class RunObserver implements AutoCloseable {

    /**
     * What is known about the run at one moment.
     *
     * @param at when the offsets were read
     * @param topics the run's topics, pipeline order, then its dead-letter topics
     * @param stages the lag of each stage
     * @param versions committed versions by number
     * @param passRates pass rate by the behaviour version that generated the groups
     * @param committedRecords records read so far (read_committed) per topic read
     * @param filter the filter stage's verdicts so far
     */
    public record Observation(
            Instant at,
            List<TopicOffsets> topics,
            List<StageLag> stages,
            SortedMap<Long, ModelVersion> versions,
            SortedMap<Long, PassRate> passRates,
            Map<String, Long> committedRecords,
            FilterCounts filter) {

        /** Copies everything. */
        public Observation {
            topics = List.copyOf(topics);
            stages = List.copyOf(stages);
            versions = Collections.unmodifiableSortedMap(new TreeMap<>(versions));
            passRates = Collections.unmodifiableSortedMap(new TreeMap<>(passRates));
            committedRecords = Map.copyOf(committedRecords);
        }

        /** The offsets of {@code topic}, which must be one of {@link #topics}. */
        public TopicOffsets topic(final String topic) {
            return topics.stream()
                    .filter(t -> t.topic().equals(topic))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(topic + " is not observed"));
        }

        /** Each stage's lag summed over its inputs, by stage id, in pipeline order. */
        public Map<String, Long> lagByStage() {
            final Map<String, Long> lag = new LinkedHashMap<>();
            stages.forEach(s -> lag.put(s.stage(), s.lag()));
            return lag;
        }
    }

    private final RunProgress progress;
    private final LagMeter meter;

    /** An observer of {@code run}'s stages with their default group ids. */
    public RunObserver(final String run, final Connection connection) {
        this(run, connection, Stage.defaults(run));
    }

    /** An observer measuring the given stages (for stages started with other group ids). */
    public RunObserver(final String run, final Connection connection, final List<Stage> stages) {
        this.progress = new RunProgress(run, connection);
        try {
            this.meter = new LagMeter(run, connection, stages);
        } catch (RuntimeException e) {
            progress.close();
            throw e;
        }
    }

    /**
     * Reads offsets and lag now, and the versions and rewarded groups committed since the last call
     * (for at most ten seconds, the rest is read by the next call).
     */
    public synchronized Observation observe() {
        final Instant now = Instant.now();
        final LagMeter.Reading lag = meter.read();
        final RunProgress.Snapshot read = progress.readOn(lag.existing());
        return new Observation(
                now,
                lag.topics(),
                lag.stages(),
                read.versions(),
                read.passRates(),
                read.committedRecords(),
                read.filter());
    }

    /**
     * The records committed to {@code topic} so far (read_committed, from its beginning), read on
     * from the last call.
     */
    public synchronized long committedRecords(final String topic) {
        return progress.committedRecords(topic);
    }

    @Override
    public synchronized void close() {
        try {
            progress.close();
        } finally {
            meter.close();
        }
    }
}
