package dev.rwml.ops.cli.demo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Shows a run's progress: on a terminal one block redrawn in place, otherwise (logs, CI) one line
 * every few seconds.
 */
public final class ProgressView {

    private static final Duration LINE_EVERY = Duration.ofSeconds(10);

    private final PrintWriter out;
    private final boolean terminal;
    private final Duration budget;
    private int drawnLines;
    private Duration lastLine = Duration.ofSeconds(-LINE_EVERY.getSeconds());

    /**
     * @param out where to write
     * @param terminal redraw one block (ANSI cursor movement) rather than append lines
     * @param budget the run's time budget, shown as remaining time
     */
    public ProgressView(final PrintWriter out, final boolean terminal, final Duration budget) {
        this.out = out;
        this.terminal = terminal;
        this.budget = budget;
    }

    /** Shows the snapshot (on a non-terminal only when a line is due). */
    public void show(final RunMonitor.Snapshot s) {
        if (terminal) {
            final List<String> block = block(s);
            if (drawnLines > 0) {
                out.print("\033[" + drawnLines + "A\033[J");
            }
            block.forEach(out::println);
            drawnLines = block.size();
            out.flush();
        } else if (s.elapsed().minus(lastLine).compareTo(LINE_EVERY) >= 0) {
            out.println(line(s));
            out.flush();
            lastLine = s.elapsed();
        }
    }

    /** The one-line form. */
    static String line(final RunMonitor.Snapshot s) {
        final Map<String, Double> r = s.groupsPerSecond();
        return String.format(
                Locale.ROOT,
                "[%s] version %d | pass rate %s | groups/s predict %.2f reward %.2f trained %.2f"
                        + " | lag %s | stale dropped %d | dead letters %d",
                clock(s.elapsed()),
                s.currentVersion(),
                recentPassRates(s, 4),
                r.getOrDefault("prediction", 0.0),
                r.getOrDefault("reward", 0.0),
                r.getOrDefault("trainer", 0.0),
                s.lag(),
                s.droppedStale(),
                s.deadLetters());
    }

    private List<String> block(final RunMonitor.Snapshot s) {
        final Map<String, Double> r = s.groupsPerSecond();
        final List<String> lines = new ArrayList<>();
        lines.add(
                String.format(
                        Locale.ROOT,
                        "rwml demo  %s elapsed, %s left",
                        clock(s.elapsed()),
                        clock(
                                budget.minus(s.elapsed()).isNegative()
                                        ? Duration.ZERO
                                        : budget.minus(s.elapsed()))));
        lines.add(
                String.format(
                        Locale.ROOT,
                        "  model version   %d (%d published after the base)",
                        s.currentVersion(),
                        s.versionsAfterBase()));
        lines.add("  pass rate       " + recentPassRates(s, 6));
        lines.add(
                String.format(
                        Locale.ROOT,
                        "  groups/s        predict %.2f   reward %.2f   trained %.2f (kept groups"
                                + " with a non-zero advantage)",
                        r.getOrDefault("prediction", 0.0),
                        r.getOrDefault("reward", 0.0),
                        r.getOrDefault("trainer", 0.0)));
        lines.add("  lag (records)   " + s.lag());
        lines.add(
                String.format(
                        Locale.ROOT,
                        "  rewarded groups %d   stale dropped %d   dead letters %d   (Ctrl-C stops"
                                + " and writes the report)",
                        s.rewardedGroups(),
                        s.droppedStale(),
                        s.deadLetters()));
        return lines;
    }

    /** The pass rate of the groups of the last few behaviour versions, newest last. */
    static String recentPassRates(final RunMonitor.Snapshot s, final int count) {
        if (s.passRates().isEmpty()) {
            return "(no rewards yet)";
        }
        final List<String> parts = new ArrayList<>();
        s.passRates()
                .forEach(
                        (v, p) ->
                                parts.add(
                                        String.format(
                                                Locale.ROOT,
                                                "v%d %.2f (%d)",
                                                v,
                                                p.mean(),
                                                p.groups())));
        return String.join("  ", parts.subList(Math.max(0, parts.size() - count), parts.size()));
    }

    private static String clock(final Duration d) {
        return String.format(Locale.ROOT, "%d:%02d", d.toMinutes(), d.toSecondsPart());
    }
}
