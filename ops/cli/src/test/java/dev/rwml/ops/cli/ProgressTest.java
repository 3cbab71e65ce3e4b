package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The progress printer of demo, bench and replay. */
class ProgressTest {

    @Test
    void shouldPrintAFlushedLineWithRootLocaleNumbers() {
        final Locale before = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            final StringWriter text = new StringWriter();
            // Not autoflushing, so the line shows only if say flushes it.
            final PrintWriter out = new PrintWriter(text, false);
            new Progress(out, false).say("  SFT step %d/%d loss %.3f", 3, 10, 1.5);
            assertThat(text).hasToString("  SFT step 3/10 loss 1.500" + System.lineSeparator());
        } finally {
            Locale.setDefault(before);
        }
    }
}
