package dev.rwml.env.imports;

/**
 * A line the importer skipped.
 *
 * @param lineNumber the 1-based line number
 * @param reason why, e.g. {@code missing field "task"}
 */
public record SkippedLine(int lineNumber, String reason) {

    @Override
    public String toString() {
        return "line " + lineNumber + ": " + reason;
    }
}
