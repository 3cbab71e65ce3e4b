package dev.rwml.ops.cli.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The chart renderer, checked on what it writes (text of the SVG, CSV rows), not on pixels. */
class LineChartTest {

    private static LineChart versions() {
        return new LineChart("Held-out pass rate", "model version", "pass rate (fraction)")
                .add(
                        LineChart.Series.withInterval(
                                "RWML versions",
                                new double[] {0, 5, 10},
                                new double[] {0.15, 0.2, 0.25},
                                new double[] {0.1, 0.14, 0.2},
                                new double[] {0.2, 0.26, 0.31}))
                .add(
                        new LineChart.Series(
                                "base (version 0)",
                                new double[] {0, 10},
                                new double[] {0.15, 0.15},
                                true));
    }

    @Test
    void shouldWriteAnSvgWithTitleAxisLabelsTicksAndEveryLegendEntry() {
        final String svg = versions().svg();
        assertThat(svg)
                .startsWith("<svg")
                .contains(
                        "Held-out pass rate",
                        "model version",
                        "pass rate (fraction)",
                        "RWML versions",
                        "base (version 0)");
        // Several numbered ticks on each axis, not just the ends.
        final long yTicks =
                List.of("0.05", "0.10", "0.15", "0.20", "0.25", "0.30").stream()
                        .filter(t -> svg.contains(">" + t + "<"))
                        .count();
        assertThat(yTicks).as("y tick labels in%n%s", svg).isGreaterThanOrEqualTo(3);
        final long xTicks =
                List.of("0", "2", "4", "5", "6", "8", "10").stream()
                        .filter(t -> svg.contains(">" + t + "<"))
                        .count();
        assertThat(xTicks).isGreaterThanOrEqualTo(3);
    }

    @Test
    void shouldNameCategoriesOnTheXAxisAndKeepTheFiguresInCsv() {
        final LineChart chart =
                new LineChart("Pass rate per model", "model", "pass rate")
                        .categories(List.of("demo@0", "demo@15"))
                        .add(
                                LineChart.Series.withInterval(
                                        "valid_seen",
                                        new double[] {0, 1},
                                        new double[] {0.168, 0.22},
                                        new double[] {0.115, 0.153},
                                        new double[] {0.225, 0.288}))
                        .add(
                                LineChart.Series.withInterval(
                                        "valid_unseen",
                                        new double[] {0, 1},
                                        new double[] {0.16, 0.208},
                                        new double[] {0.105, 0.148},
                                        new double[] {0.215, 0.27}));
        assertThat(chart.svg()).contains("demo@0", "demo@15", "valid_seen", "valid_unseen");
        assertThat(chart.csv().lines())
                .containsExactly(
                        "series,x,y,low,high",
                        "valid_seen,demo@0,0.168000,0.115000,0.225000",
                        "valid_seen,demo@15,0.220000,0.153000,0.288000",
                        "valid_unseen,demo@0,0.160000,0.105000,0.215000",
                        "valid_unseen,demo@15,0.208000,0.148000,0.270000");
    }

    @Test
    void shouldDrawBandsAndAPngHeadless() {
        final byte[] png = versions().bands().png();
        assertThat(png).startsWith(0x89, 'P', 'N', 'G');
        assertThat(new LineChart("empty", "x", "y").svg()).contains("empty");
    }
}
