package dev.rwml.schemas.topics;

import java.util.List;

/** Existing topics differ from the catalog in a way the stages cannot work with. */
public final class TopicMismatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public TopicMismatchException(final List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    /** One sentence per mismatch, each saying what to do. */
    public List<String> problems() {
        return problems;
    }
}
