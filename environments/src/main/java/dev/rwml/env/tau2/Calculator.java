package dev.rwml.env.tau2;

/**
 * The {@code calculate} tool shared by both domains: evaluates an arithmetic expression of numbers,
 * {@code + - * /} and parentheses, and returns the result rounded to two decimals.
 */
public final class Calculator {

    private final String text;
    private int pos;

    private Calculator(final String text) {
        this.text = text;
    }

    /** Evaluates the expression; a {@link ToolError} for anything that is not plain arithmetic. */
    public static String calculate(final String expression) {
        if (!expression.matches("[0-9+\\-*/(). ]+")) {
            throw ToolError.badArgument(
                    "invalid characters in expression: only numbers, + - * / ( ) and spaces are"
                            + " allowed");
        }
        final Calculator calc = new Calculator(expression.replace(" ", ""));
        final double value = calc.sum();
        if (calc.pos != calc.text.length()) {
            throw ToolError.badArgument("malformed expression near position " + calc.pos);
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw ToolError.badArgument("division by zero");
        }
        return Double.toString(Money.cents(value));
    }

    private double sum() {
        double value = product();
        while (pos < text.length() && (peek() == '+' || peek() == '-')) {
            final char op = text.charAt(pos++);
            value = op == '+' ? value + product() : value - product();
        }
        return value;
    }

    private double product() {
        double value = unary();
        while (pos < text.length() && (peek() == '*' || peek() == '/')) {
            final char op = text.charAt(pos++);
            value = op == '*' ? value * unary() : value / unary();
        }
        return value;
    }

    private double unary() {
        if (pos < text.length() && peek() == '-') {
            pos++;
            return -unary();
        }
        if (pos < text.length() && peek() == '(') {
            pos++;
            final double value = sum();
            if (pos >= text.length() || peek() != ')') {
                throw ToolError.badArgument("malformed expression: missing ')'");
            }
            pos++;
            return value;
        }
        final int start = pos;
        while (pos < text.length() && (Character.isDigit(peek()) || peek() == '.')) {
            pos++;
        }
        try {
            return Double.parseDouble(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw ToolError.badArgument("malformed expression near position " + start);
        }
    }

    private char peek() {
        return text.charAt(pos);
    }
}
