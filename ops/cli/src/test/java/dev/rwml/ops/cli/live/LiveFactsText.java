package dev.rwml.ops.cli.live;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the live view's facts back from what a demo printed, whatever the form (the panel on a
 * terminal, plain lines on a pipe or in the log file): the tests of both forms compare these.
 */
public final class LiveFactsText {

    /** Every kind of fact the demo's view shows, in both forms. */
    public static final Set<String> ALL =
            Set.of(
                    "stage prediction",
                    "stage reward",
                    "stage trainer",
                    "versions",
                    "training",
                    "bar",
                    "time");

    private static final Pattern STAGE =
            Pattern.compile(
                    "(prediction|reward|trainer) +[0-9.]+ groups/s,? +lag \\d+,? +dead letters \\d+");
    private static final Pattern VERSION = Pattern.compile("\\bv(\\d+) (?:[0-9.]+|-) \\(\\d+\\)");

    /** The trainer's counts; a demo that printed them has trained. */
    public static final Pattern TRAINING =
            Pattern.compile(
                    "\\d+ steps, \\d+ groups trained, \\d+ dropped stale, \\d+ without advantage");

    private static final Pattern BAR = Pattern.compile("versions +.*?(\\d+)/(\\d+)");

    private LiveFactsText() {}

    /** The kinds of fact {@code text} shows. */
    public static Set<String> kinds(final String text) {
        final Set<String> kinds = new LinkedHashSet<>();
        final Matcher stage = STAGE.matcher(text);
        while (stage.find()) {
            kinds.add("stage " + stage.group(1));
        }
        if (VERSION.matcher(text).find()) {
            kinds.add("versions");
        }
        if (TRAINING.matcher(text).find()) {
            kinds.add("training");
        }
        if (BAR.matcher(text).find()) {
            kinds.add("bar");
        }
        if (text.contains(" elapsed, ") && text.contains(" left")) {
            kinds.add("time");
        }
        return kinds;
    }

    /** Every fact's text with its values, in order, whatever the layout around it. */
    public static List<String> values(final String text) {
        final List<String> found = new ArrayList<>();
        for (final Pattern p : List.of(STAGE, VERSION, TRAINING)) {
            final Matcher m = p.matcher(text);
            while (m.find()) {
                found.add(m.group().replaceAll(",? +", " "));
            }
        }
        final Matcher bar = BAR.matcher(text);
        while (bar.find()) {
            found.add("versions " + bar.group(1) + "/" + bar.group(2));
        }
        return found;
    }

    /**
     * The last block of plain lines in {@code text}: the last line ending with {@code title} and
     * the indented lines after it.
     */
    public static String lastPlainBlock(final String text, final String title) {
        final List<String> lines = text.lines().toList();
        int start = lines.size() - 1;
        while (start >= 0 && !lines.get(start).endsWith(title)) {
            start--;
        }
        if (start < 0) {
            throw new AssertionError("no block of plain lines titled '" + title + "' in:\n" + text);
        }
        int end = start + 1;
        while (end < lines.size() && lines.get(end).startsWith("  ")) {
            end++;
        }
        return String.join("\n", lines.subList(start, end));
    }
}
