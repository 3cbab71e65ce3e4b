package dev.rwml.env.produce;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressPrinterTest {

    private final StringWriter text = new StringWriter();

    @Test
    void shouldRewriteOneLineOnATerminal() {
        final ProgressPrinter printer =
                new ProgressPrinter(new PrintWriter(text), true, "alfworld/train");
        printer.update(new Progress(10, 1000, 0, Duration.ofSeconds(2)));
        printer.finished(new Progress(12, 120, 0, Duration.ofSeconds(2)));
        assertThat(text.toString())
                .isEqualTo(
                        "\ralfworld/train: 10 episodes, 1000 transitions, 500.0 transitions/s"
                                + "\ralfworld/train: 12 episodes, 120 transitions, 60.0"
                                + " transitions/s  "
                                + System.lineSeparator());
    }

    @Test
    void shouldPrintALinePerSnapshotWhenNotATerminal() {
        final ProgressPrinter printer = new ProgressPrinter(new PrintWriter(text), false, "retail");
        printer.update(new Progress(1, 10, 0, Duration.ofSeconds(1)));
        printer.update(new Progress(2, 20, 3, Duration.ofSeconds(2)));
        assertThat(text.toString().lines())
                .containsExactly(
                        "retail: 1 episodes, 10 transitions, 10.0 transitions/s",
                        "retail: 2 episodes, 20 transitions, 10.0 transitions/s, 3 send errors");
    }
}
