package dev.rwml.env.imports;

import java.time.Duration;
import java.util.List;

/**
 * What an import published and what it skipped.
 *
 * @param episodes episodes whose transitions were all sent
 * @param transitions transitions the broker acknowledged
 * @param sendErrors transitions that failed after the client's retries
 * @param skipped the malformed lines, in file order
 * @param elapsed wall time of the import, flush included
 */
public record ImportResult(
        long episodes,
        long transitions,
        long sendErrors,
        List<SkippedLine> skipped,
        Duration elapsed) {

    public ImportResult {
        skipped = List.copyOf(skipped);
    }

    /** The one-line summary, e.g. {@code imported 3 episodes / 41 transitions, skipped 1 line}. */
    public String summary() {
        return "imported "
                + episodes
                + " episodes / "
                + transitions
                + " transitions, skipped "
                + skipped.size()
                + (skipped.size() == 1 ? " line" : " lines")
                + (sendErrors == 0 ? "" : ", " + sendErrors + " send errors");
    }
}
