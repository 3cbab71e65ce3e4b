package dev.rwml.pipeline.replay;

import dev.rwml.filter.FilterApp;
import dev.rwml.filter.FilterConfig;
import dev.rwml.filter.FilterMetrics;
import dev.rwml.filter.FilterStage;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.pipeline.watch.RunProgress;
import dev.rwml.runtime.Meters;
import dev.rwml.runtime.lifecycle.StreamsLifecycle;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.start.StartPosition;
import dev.rwml.runtime.start.StopAt;
import dev.rwml.schemas.topics.TopicCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;

/**
 * The paper's offline difficulty filter over a replay slice, before any training: the filter stage
 * reads the slice once (its group moved to the slice start, {@code stop.at} = the slice end), its
 * model tries every transition K times, and the transitions it keeps (every hard or informative
 * one, an easy one with the keep probability) go to {@code rwml.<run>.curriculum}, which the
 * replay's prediction stage then reads instead of the slice.
 */
public final class FilterPass {

    /** The easy fraction the paper set its data-stage threshold for. */
    public static final double PAPER_EASY_FRACTION = 0.3;

    private static final Duration TICK = Duration.ofMillis(500);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

    /**
     * What the filter decided.
     *
     * @param judged transitions judged
     * @param easy judged easy (kept or not)
     * @param kept passed on to the curriculum
     * @param deadLetters transitions that could not be judged
     * @param thresholdForPaperFraction the data-stage similarity threshold at which {@link
     *     #PAPER_EASY_FRACTION} of the slice would have been easy
     */
    public record Result(
            long judged, long easy, long kept, long deadLetters, double thresholdForPaperFraction) {

        /** The fraction judged easy, 0 when nothing was judged. */
        public double easyFraction() {
            return judged == 0 ? 0 : (double) easy / judged;
        }
    }

    private final Connection connection;
    private final RunOutput output;

    FilterPass(final Connection connection, final RunOutput output) {
        this.connection = connection;
        this.output = output;
    }

    /**
     * Judges every transition of {@code slice} for run {@code run} with the model of {@code
     * filterRun}, and returns once every verdict is committed.
     *
     * @param settings filter-stage settings (keys of {@code rwml filter}) over replay's own
     */
    Result run(
            final String run,
            final String filterRun,
            final TransitionSlice slice,
            final Path stateDir,
            final Map<String, String> settings,
            final Admin admin)
            throws InterruptedException {
        if (settings.containsKey("envs")) {
            throw new IllegalArgumentException(
                    "replay's filter judges every transition of the slice; choose environments"
                            + " with prediction.select.envs instead of filter.envs");
        }
        final Map<String, String> m = new LinkedHashMap<>();
        m.put(StreamsLifecycle.STATE_DIR, stateDir.toString());
        // Quick commits: the end of the pass is seen from committed output.
        m.put("streams.commit.interval.ms", "500");
        m.putAll(settings);
        m.put("run", run);
        m.put("filter.run", filterRun);
        m.putAll(connection.asMap());
        m.put(StartPosition.SETTING, "earliest");
        m.put(StopAt.SETTING, new StopAt(slice.until()).text());
        final FilterConfig config = FilterConfig.fromMap(m);
        ReplayRun.moveGroup(admin, config.applicationId(), TopicCatalog.TRANSITIONS, slice.from());
        final String verdicts = TopicCatalog.defaults().run(run).difficulty().name();
        final MeterRegistry meters = new SimpleMeterRegistry();
        output.say(
                "Filter pass: version %d of run %s tries each of %d transitions %d times",
                config.filterVersion(),
                filterRun,
                slice.transitions(),
                config.sampling().groupSize());
        try (FilterStage stage = FilterApp.start(config, meters);
                RunProgress observer = new RunProgress(run, connection)) {
            long lastPrint = System.nanoTime();
            while (observer.committedRecords(verdicts) + deadLetters(meters, run)
                    < slice.transitions()) {
                if (stage.termination().isDone()) {
                    throw new IllegalStateException(
                            "the filter stage stopped before judging the slice; see its log");
                }
                if (System.nanoTime() - lastPrint >= PROGRESS_EVERY.toNanos()) {
                    output.say(
                            "  filter: %d of %d transitions judged",
                            observer.committedRecords(verdicts), slice.transitions());
                    lastPrint = System.nanoTime();
                }
                Thread.sleep(TICK.toMillis());
            }
            final RunProgress.FilterCounts counts = observer.readOn(Set.of(verdicts)).filter();
            final Result result =
                    new Result(
                            counts.judged(),
                            counts.easy(),
                            counts.kept(),
                            deadLetters(meters, run),
                            observer.thresholdForEasyFraction(PAPER_EASY_FRACTION));
            output.say(
                    "Filter pass: %d judged, %d easy (%.1f%%), %d kept, %d dead-lettered; %s",
                    result.judged(),
                    result.easy(),
                    100 * result.easyFraction(),
                    result.kept(),
                    result.deadLetters(),
                    paperThreshold(result.thresholdForPaperFraction()));
            return result;
        }
    }

    /** Says which data-stage threshold would have made 30% of the slice easy, if one would. */
    public static String paperThreshold(final double threshold) {
        return threshold >= 1 - 1e-6
                ? "no threshold makes only 30% easy: more than 30% had a try equal to the observed"
                        + " state"
                : String.format(Locale.ROOT, "30%% would be easy above similarity %.3f", threshold);
    }

    private static long deadLetters(final MeterRegistry meters, final String run) {
        return (long) Meters.total(meters, FilterMetrics.DEAD_LETTERS, run);
    }
}
