package dev.rwml.ops.cli.doctor;

import java.util.Locale;

/**
 * What one check of {@code rwml doctor} found: {@code ok} with what it saw, or what to do.
 *
 * @param check the check's name, the first column of its line
 * @param ok whether nothing needs doing
 * @param message what the check saw when ok, else what failed and how to fix it
 */
public record Finding(String check, boolean ok, String message) {

    /** A check that passed, with what it saw. */
    public static Finding ok(final String check, final String saw) {
        return new Finding(check, true, saw);
    }

    /** A check that failed, with what failed and what to do. */
    public static Finding fix(final String check, final String whatToDo) {
        return new Finding(check, false, whatToDo);
    }

    /** The finding's line, its name padded to {@code width} so a list of them aligns. */
    public String line(final int width) {
        return String.format(
                Locale.ROOT, "%-" + width + "s  %-4s %s", check, ok ? "ok" : "fix", message);
    }
}
