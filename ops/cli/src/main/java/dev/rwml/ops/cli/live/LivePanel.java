package dev.rwml.ops.cli.live;

import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.LiveFacts.Bar;
import dev.rwml.pipeline.watch.LiveFacts.Stage;
import dev.rwml.pipeline.watch.LiveFacts.Trainer;
import dev.rwml.pipeline.watch.LiveFacts.Version;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders {@link LiveFacts} in the two forms of the live view: the terminal's panel (aligned rows
 * and bars, redrawn in place) and the pipe's plain lines (the same facts, one short line each).
 * Each fact reads alike in both ({@code prediction 1.20 groups/s}, {@code lag 3}, {@code v3 0.22
 * (62)}, {@code 12 steps}, {@code 45/100}), so a reader, or a test, finds it in either. Pure.
 */
public final class LivePanel {

    private static final int BAR_WIDTH = 24;

    private LivePanel() {}

    /** The panel's lines, each cut to {@code width} columns. */
    public static List<String> panel(final LiveFacts f, final int width) {
        final List<String> lines = new ArrayList<>();
        lines.add(f.title() + "  " + time(f) + (f.hint().isEmpty() ? "" : "   (" + f.hint() + ")"));
        for (final Stage s : f.stages()) {
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "  %-11s %6.2f groups/s   lag %-7d dead letters %d",
                            s.name(),
                            s.groupsPerSecond(),
                            s.lag(),
                            s.deadLetters()));
        }
        if (!f.stages().isEmpty()) {
            lines.add("  versions    " + versions(f.versions(), "  ") + "   pass rate (groups)");
        }
        f.trainer().ifPresent(t -> lines.add("  training    " + trainer(t)));
        for (final Bar b : f.bars()) {
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "  %-11s %s %d/%d",
                            b.label(),
                            bar(b.fraction()),
                            b.done(),
                            b.total()));
        }
        return lines.stream().map(l -> cut(l, width)).toList();
    }

    /** The plain lines: the same facts as {@link #panel}, one short line each. */
    public static List<String> plain(final LiveFacts f) {
        final List<String> lines = new ArrayList<>();
        lines.add("[" + time(f) + "] " + f.title());
        for (final Stage s : f.stages()) {
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "  %s %.2f groups/s, lag %d, dead letters %d",
                            s.name(),
                            s.groupsPerSecond(),
                            s.lag(),
                            s.deadLetters()));
        }
        if (!f.stages().isEmpty()) {
            lines.add("  pass rate (groups): " + versions(f.versions(), ", "));
        }
        f.trainer().ifPresent(t -> lines.add("  training: " + trainer(t)));
        for (final Bar b : f.bars()) {
            lines.add(
                    String.format(
                            Locale.ROOT,
                            "  %s %d/%d (%.0f%%)",
                            b.label(),
                            b.done(),
                            b.total(),
                            100 * b.fraction()));
        }
        return lines;
    }

    private static String time(final LiveFacts f) {
        return clock(f.elapsed())
                + " elapsed"
                + f.remaining().map(r -> ", " + clock(r) + " left").orElse("");
    }

    private static String versions(final List<Version> versions, final String separator) {
        if (versions.isEmpty()) {
            return "(none committed yet)";
        }
        final List<String> parts = new ArrayList<>();
        for (final Version v :
                versions.subList(0, Math.min(LiveFacts.VERSIONS_SHOWN, versions.size()))) {
            parts.add(
                    "v"
                            + v.version()
                            + " "
                            + v.passRate()
                                    .map(p -> String.format(Locale.ROOT, "%.2f", p))
                                    .orElse("-")
                            + " ("
                            + v.groups()
                            + ")");
        }
        return String.join(separator, parts);
    }

    private static String trainer(final Trainer t) {
        return String.format(
                Locale.ROOT,
                "%d steps, %d groups trained, %d dropped stale, %d without advantage",
                t.steps(),
                t.groupsTrained(),
                t.droppedStale(),
                t.skippedZeroAdvantage());
    }

    /** A bar of {@value #BAR_WIDTH} cells, {@code =} for the done part. */
    static String bar(final double fraction) {
        final int full = (int) Math.round(fraction * BAR_WIDTH);
        return "[" + "=".repeat(full) + " ".repeat(BAR_WIDTH - full) + "]";
    }

    /** {@code m:ss}, or {@code h:mm:ss} from an hour on. */
    static String clock(final Duration d) {
        final Duration t = d.isNegative() ? Duration.ZERO : d;
        return t.toHours() > 0
                ? String.format(
                        Locale.ROOT,
                        "%d:%02d:%02d",
                        t.toHours(),
                        t.toMinutesPart(),
                        t.toSecondsPart())
                : String.format(Locale.ROOT, "%d:%02d", t.toMinutes(), t.toSecondsPart());
    }

    private static String cut(final String line, final int width) {
        return width > 0 && line.length() > width ? line.substring(0, width) : line;
    }
}
