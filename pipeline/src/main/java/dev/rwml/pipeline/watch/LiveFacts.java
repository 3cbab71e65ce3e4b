package dev.rwml.pipeline.watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a live view shows at one moment: the command, its time, each stage's throughput, lag and
 * dead letters, the newest versions with their pass rates, the trainer's counts, and bars for
 * finite work. Both forms of the command's live panel render exactly these facts.
 *
 * @param title what runs, e.g. {@code rwml demo}
 * @param elapsed since the work began
 * @param remaining time left (a budget or an estimate), empty when unknown
 * @param stages the pipeline's stages in order; empty for a command without stages
 * @param versions the newest versions, newest first
 * @param trainer the trainer's counts, empty before it committed a version
 * @param bars finite work, in the order shown
 * @param hint a short note for the terminal only (how to stop), or empty
 */
public record LiveFacts(
        String title,
        Duration elapsed,
        Optional<Duration> remaining,
        List<Stage> stages,
        List<Version> versions,
        Optional<Trainer> trainer,
        List<Bar> bars,
        String hint) {

    /** Versions shown, newest first. */
    public static final int VERSIONS_SHOWN = 4;

    /** Copies the lists. */
    public LiveFacts {
        stages = List.copyOf(stages);
        versions = List.copyOf(versions);
        bars = List.copyOf(bars);
    }

    /** Facts with only bars: a command doing finite work without stages. */
    public static LiveFacts bars(final String title, final Duration elapsed, final List<Bar> bars) {
        return new LiveFacts(
                title,
                elapsed,
                bars.isEmpty() ? Optional.empty() : bars.get(0).remaining(elapsed),
                List.of(),
                List.of(),
                Optional.empty(),
                bars,
                "");
    }

    /** A copy with {@code bar} added after the others. */
    public LiveFacts withBar(final Bar bar) {
        final List<Bar> more = new ArrayList<>(bars);
        more.add(bar);
        return new LiveFacts(title, elapsed, remaining, stages, versions, trainer, more, hint);
    }

    /**
     * One stage's recent throughput and backlog.
     *
     * @param name prediction, reward or trainer
     * @param groupsPerSecond groups per second over the last seconds
     * @param lag records behind on its inputs
     * @param deadLetters records it dead-lettered
     */
    public record Stage(String name, double groupsPerSecond, long lag, long deadLetters) {}

    /**
     * A committed version and the pass rate of the groups it generated.
     *
     * @param version its number
     * @param passRate mean pass rate of its groups, empty before any was rewarded
     * @param groups rewarded groups it generated
     */
    public record Version(long version, Optional<Double> passRate, long groups) {}

    /**
     * The trainer's counts over every committed version.
     *
     * @param steps optimizer steps
     * @param groupsTrained groups trained on
     * @param droppedStale groups dropped as too stale
     * @param skippedZeroAdvantage groups skipped for carrying no advantage
     */
    public record Trainer(
            long steps, long groupsTrained, long droppedStale, long skippedZeroAdvantage) {}

    /**
     * Finite work and how much of it is done.
     *
     * @param label what is counted, e.g. {@code SFT steps}
     * @param done units done
     * @param total units in all
     */
    public record Bar(String label, long done, long total) {

        /** Validates the counts. */
        public Bar {
            if (total <= 0 || done < 0) {
                throw new IllegalArgumentException(
                        label
                                + ": a bar needs a positive total and done >= 0, got "
                                + done
                                + "/"
                                + total);
            }
        }

        /** The done fraction, at most 1. */
        public double fraction() {
            return Math.min(1.0, (double) done / total);
        }

        /**
         * The time left at the pace so far, {@code elapsed} after the work began; empty before any
         * unit is done.
         */
        public Optional<Duration> remaining(final Duration elapsed) {
            if (done == 0) {
                return Optional.empty();
            }
            final double left = (1 - fraction()) / fraction();
            return Optional.of(Duration.ofMillis(Math.round(elapsed.toMillis() * left)));
        }
    }
}
