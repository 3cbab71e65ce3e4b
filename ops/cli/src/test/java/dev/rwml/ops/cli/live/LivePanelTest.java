package dev.rwml.ops.cli.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.LiveFacts.Bar;
import dev.rwml.pipeline.watch.LiveFacts.Stage;
import dev.rwml.pipeline.watch.LiveFacts.Trainer;
import dev.rwml.pipeline.watch.LiveFacts.Version;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The live view's two forms, rendered from one snapshot of facts. */
class LivePanelTest {

    private static final LiveFacts FACTS =
            new LiveFacts(
                    "rwml demo",
                    Duration.ofSeconds(83),
                    Optional.of(Duration.ofSeconds(7)),
                    List.of(
                            new Stage("prediction", 1.2, 3, 0),
                            new Stage("reward", 1.1, 10, 2),
                            new Stage("trainer", 0.9, 69, 0)),
                    List.of(
                            new Version(5, Optional.empty(), 0),
                            new Version(4, Optional.of(0.22), 62),
                            new Version(3, Optional.of(0.18), 80),
                            new Version(2, Optional.of(0.11), 82),
                            new Version(1, Optional.of(0.05), 40)),
                    Optional.of(new Trainer(12, 96, 4, 8)),
                    List.of(new Bar("versions", 2, 3)),
                    "Ctrl-C stops and writes the report");

    /** Every fact, as both forms write it. */
    private static final List<String> FACT_TEXTS =
            List.of(
                    "1:23 elapsed, 0:07 left",
                    "rwml demo",
                    "1.20 groups/s",
                    "lag 3",
                    "1.10 groups/s",
                    "lag 10",
                    "dead letters 2",
                    "0.90 groups/s",
                    "lag 69",
                    "v5 - (0)",
                    "v4 0.22 (62)",
                    "v3 0.18 (80)",
                    "v2 0.11 (82)",
                    "12 steps, 96 groups trained, 4 dropped stale, 8 without advantage",
                    "2/3");

    @Test
    void shouldShowTheSameFactsInThePanelAndThePlainLines() {
        final String panel = String.join("\n", LivePanel.panel(FACTS, 120));
        final String plain = String.join("\n", LivePanel.plain(FACTS));

        assertThat(panel).contains(FACT_TEXTS).contains("[================        ] 2/3");
        assertThat(plain).contains(FACT_TEXTS).contains("versions 2/3 (67%)");
        // Four versions fit; the oldest is left out of both.
        assertThat(panel).doesNotContain("v1 ");
        assertThat(plain).doesNotContain("v1 ");
    }

    @Test
    void shouldWriteOneStageARowAlignedInThePanel() {
        final List<String> panel = LivePanel.panel(FACTS, 120);

        assertThat(panel)
                .startsWith(
                        "rwml demo  1:23 elapsed, 0:07 left   (Ctrl-C stops and writes the report)",
                        "  prediction    1.20 groups/s   lag 3       dead letters 0",
                        "  reward        1.10 groups/s   lag 10      dead letters 2",
                        "  trainer       0.90 groups/s   lag 69      dead letters 0");
        assertThat(LivePanel.panel(FACTS, 30))
                .allSatisfy(l -> assertThat(l).hasSizeLessThanOrEqualTo(30));
    }

    @Test
    void shouldKeepThePlainLinesShortAndLeaveTheHintToTheTerminal() {
        final List<String> plain = LivePanel.plain(FACTS);

        assertThat(plain).allSatisfy(l -> assertThat(l).hasSizeLessThanOrEqualTo(80));
        assertThat(plain.get(0)).isEqualTo("[1:23 elapsed, 0:07 left] rwml demo");
        assertThat(String.join("\n", plain)).doesNotContain("Ctrl-C");
    }

    @Test
    void shouldShowABarsOnlyCommandWithItsEstimatedTimeLeft() {
        final LiveFacts sft =
                LiveFacts.bars(
                        "rwml model init",
                        Duration.ofSeconds(30),
                        List.of(new Bar("SFT steps", 25, 100)));

        assertThat(LivePanel.panel(sft, 100))
                .containsExactly(
                        "rwml model init  0:30 elapsed, 1:30 left",
                        "  SFT steps   [======                  ] 25/100");
        assertThat(LivePanel.plain(sft))
                .containsExactly(
                        "[0:30 elapsed, 1:30 left] rwml model init", "  SFT steps 25/100 (25%)");
    }

    @Test
    void shouldPrintPlainLinesAtTheirPaceAndTheLastFactsOnClose() {
        final StringWriter text = new StringWriter();
        final LiveFacts first =
                LiveFacts.bars("work", Duration.ZERO, List.of(new Bar("units", 1, 4)));
        final LiveFacts second =
                LiveFacts.bars("work", Duration.ofSeconds(1), List.of(new Bar("units", 2, 4)));
        final LiveFacts third =
                LiveFacts.bars("work", Duration.ofSeconds(30), List.of(new Bar("units", 3, 4)));

        try (LiveView view = LiveView.open(new PrintWriter(text), false, Duration.ofHours(1))) {
            assertThat(view.panel()).isFalse();
            view.show(first);
            view.show(second);
            view.say("a line between");
            view.show(third);
        }

        assertThat(text.toString().lines())
                .containsExactly(
                        "[0:00 elapsed, 0:00 left] work",
                        "  units 1/4 (25%)",
                        "a line between",
                        "[0:30 elapsed, 0:10 left] work",
                        "  units 3/4 (75%)");
    }
}
