package dev.rwml.env.tau2;

import java.util.Locale;

/** Rounding and formatting of amounts, so sums of prices never show floating-point noise. */
public final class Money {

    private Money() {}

    /** Rounds to cents. */
    public static double cents(final double amount) {
        return Math.round(amount * 100.0) / 100.0;
    }

    /** Two decimals, dot separator, e.g. {@code 54.10}. */
    public static String format(final double amount) {
        return String.format(Locale.ROOT, "%.2f", cents(amount));
    }
}
