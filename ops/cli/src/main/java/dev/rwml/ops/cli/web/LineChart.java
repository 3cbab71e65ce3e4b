package dev.rwml.ops.cli.web;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Ellipse2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.DeviationRenderer;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * The one chart renderer of the CLI, drawn by JFreeChart: named series of (x, y) points, optionally
 * with an interval per point (error bars, or bands), numeric axes with ticks, or model names along
 * x, and a legend below the plot that wraps to fit. Written as PNG (the status page), SVG (the
 * reports' HTML) and CSV (the same figures). Runs headless.
 */
public final class LineChart {

    static {
        // A CLI and its tests draw off-screen; without a display AWT must not look for one.
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        // Rotated labels (the y axis) drawn as text, not as glyph outlines, so SVG keeps them.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
    }

    private static final int DEFAULT_WIDTH = 720;
    private static final int DEFAULT_HEIGHT = 400;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0xff7f0e),
        new Color(0x9467bd),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x7f7f7f)
    };

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final int width;
    private final int height;
    private final List<Series> series = new ArrayList<>();
    private List<String> categories = List.of();
    private boolean bands;
    private boolean includeZero = true;

    /**
     * One line.
     *
     * @param name the legend text
     * @param xs x values (with {@link #categories}, indices into the category names)
     * @param ys y values, as many as x values
     * @param dashed drawn dashed, without markers (a reference line such as the base model)
     * @param lows the lower end of each point's interval, or null for none
     * @param highs the upper end of each point's interval, or null for none
     */
    public record Series(
            String name, double[] xs, double[] ys, boolean dashed, double[] lows, double[] highs) {
        public Series {
            if (xs.length != ys.length) {
                throw new IllegalArgumentException(
                        "series " + name + " has " + xs.length + " x and " + ys.length + " y");
            }
            if ((lows == null) != (highs == null)
                    || lows != null && (lows.length != ys.length || highs.length != ys.length)) {
                throw new IllegalArgumentException(
                        "series " + name + " needs a low and a high for every point, or neither");
            }
        }

        /** A series without intervals. */
        public Series(
                final String name, final double[] xs, final double[] ys, final boolean dashed) {
            this(name, xs, ys, dashed, null, null);
        }

        /** A solid series of {@code (x, y)} pairs. */
        public static Series of(final String name, final List<double[]> points) {
            return new Series(
                    name,
                    points.stream().mapToDouble(p -> p[0]).toArray(),
                    points.stream().mapToDouble(p -> p[1]).toArray(),
                    false);
        }

        /** A solid series whose points carry an interval. */
        public static Series withInterval(
                final String name,
                final double[] xs,
                final double[] ys,
                final double[] lows,
                final double[] highs) {
            return new Series(name, xs, ys, false, lows, highs);
        }

        boolean hasInterval() {
            return lows != null;
        }
    }

    /** A chart of the default size, 720 by 400 pixels. */
    public LineChart(final String title, final String xLabel, final String yLabel) {
        this(title, xLabel, yLabel, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    }

    /** A chart of {@code width} by {@code height} pixels. */
    public LineChart(
            final String title,
            final String xLabel,
            final String yLabel,
            final int width,
            final int height) {
        if (width < 240 || height < 160) {
            throw new IllegalArgumentException("a chart needs at least 240 by 160 pixels");
        }
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.width = width;
        this.height = height;
    }

    /** Adds a series; returns this chart. */
    public LineChart add(final Series s) {
        series.add(s);
        return this;
    }

    /**
     * Names the x positions 0, 1, 2, ... (e.g. models): the x axis shows the names, and the series
     * at one position are spread a little so their intervals do not hide each other.
     */
    public LineChart categories(final List<String> names) {
        this.categories = List.copyOf(names);
        return this;
    }

    /** Draws intervals as shaded bands instead of error bars; returns this chart. */
    public LineChart bands() {
        this.bands = true;
        return this;
    }

    /** Lets the y axis start above 0 when every value does; returns this chart. */
    public LineChart fitY() {
        this.includeZero = false;
        return this;
    }

    /** The chart's title. */
    public String title() {
        return title;
    }

    /** The series added so far. */
    public List<Series> series() {
        return List.copyOf(series);
    }

    /** Draws the chart and writes it to {@code file} as PNG. */
    public void writePng(final Path file) throws IOException {
        Files.write(file, png());
    }

    /** Draws the chart and writes it to {@code file} as SVG. */
    public void writeSvg(final Path file) throws IOException {
        Files.writeString(file, svg(), StandardCharsets.UTF_8);
    }

    /** Draws the chart as PNG bytes. */
    public byte[] png() {
        final BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            chart().draw(g, new Rectangle(0, 0, width, height));
        } finally {
            g.dispose();
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("no PNG writer in this JVM");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the chart " + title + " as PNG", e);
        }
        return out.toByteArray();
    }

    /** Draws the chart as an SVG element (text stays text: titles, ticks and legend). */
    public String svg() {
        final SVGGraphics2D g = new SVGGraphics2D(width, height);
        chart().draw(g, new Rectangle(0, 0, width, height));
        return g.getSVGElement();
    }

    /** The plotted figures: {@code series,x,y,low,high}, x as its category name when named. */
    public String csv() {
        final CsvTable table = new CsvTable("series", "x", "y", "low", "high");
        for (final Series s : series) {
            for (int i = 0; i < s.xs().length; i++) {
                table.row(
                        s.name(),
                        xText(s.xs()[i]),
                        number(s.ys()[i]),
                        s.hasInterval() ? number(s.lows()[i]) : "",
                        s.hasInterval() ? number(s.highs()[i]) : "");
            }
        }
        return table.text();
    }

    private String xText(final double x) {
        final int index = (int) Math.rint(x);
        if (!categories.isEmpty() && index == x && index >= 0 && index < categories.size()) {
            return categories.get(index);
        }
        return number(x);
    }

    JFreeChart chart() {
        final YIntervalSeriesCollection intervals = new YIntervalSeriesCollection();
        final YIntervalSeriesCollection lines = new YIntervalSeriesCollection();
        final List<Integer> intervalIndex = new ArrayList<>();
        final List<Integer> lineIndex = new ArrayList<>();
        final int withInterval = (int) series.stream().filter(Series::hasInterval).count();
        final java.util.Set<String> keys = new java.util.HashSet<>();
        int k = 0;
        for (int n = 0; n < series.size(); n++) {
            final Series s = series.get(n);
            // Series keys must be unique: a repeated name gets an invisible suffix.
            String key = s.name();
            while (!keys.add(key)) {
                key += "\u200b";
            }
            final YIntervalSeries data = new YIntervalSeries(key, false, true);
            final double dodge =
                    categories.isEmpty() || !s.hasInterval() || withInterval < 2
                            ? 0
                            : (k - (withInterval - 1) / 2.0) * Math.min(0.3, 0.6 / withInterval);
            for (int i = 0; i < s.xs().length; i++) {
                final double y = s.ys()[i];
                if (Double.isNaN(y) || Double.isNaN(s.xs()[i])) {
                    continue;
                }
                final boolean known =
                        s.hasInterval()
                                && !Double.isNaN(s.lows()[i])
                                && !Double.isNaN(s.highs()[i]);
                data.add(s.xs()[i] + dodge, y, known ? s.lows()[i] : y, known ? s.highs()[i] : y);
            }
            if (s.hasInterval()) {
                intervals.addSeries(data);
                intervalIndex.add(n);
                k++;
            } else {
                lines.addSeries(data);
                lineIndex.add(n);
            }
        }
        final ValueAxis x;
        if (categories.isEmpty()) {
            final NumberAxis axis = new NumberAxis(xLabel);
            axis.setAutoRangeIncludesZero(false);
            if (series.stream()
                    .flatMapToDouble(s -> java.util.Arrays.stream(s.xs()))
                    .allMatch(v -> v == Math.rint(v))) {
                axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
            }
            x = axis;
        } else {
            final SymbolAxis axis = new SymbolAxis(xLabel, categories.toArray(String[]::new));
            axis.setGridBandsVisible(false);
            // Long names side by side overlap: beyond what fits across, they stand upright.
            final int longest = categories.stream().mapToInt(String::length).max().orElse(0);
            axis.setVerticalTickLabels(categories.size() * (longest * 7 + 12) > width - 80);
            x = axis;
        }
        final NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(includeZero);
        final XYPlot plot = new XYPlot();
        plot.setDomainAxis(x);
        plot.setRangeAxis(y);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
        plot.setDataset(0, intervals);
        plot.setRenderer(0, intervalRenderer(intervalIndex));
        plot.setDataset(1, lines);
        plot.setRenderer(1, lineRenderer(lineIndex));
        final JFreeChart chart =
                new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 15), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        if (!series.isEmpty()) {
            final LegendTitle legend = new LegendTitle(plot);
            legend.setPosition(RectangleEdge.BOTTOM);
            legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            chart.addLegend(legend);
        }
        return chart;
    }

    private XYLineAndShapeRenderer intervalRenderer(final List<Integer> indices) {
        final XYLineAndShapeRenderer renderer;
        if (bands) {
            final DeviationRenderer deviation = new DeviationRenderer(true, true);
            deviation.setAlpha(0.2f);
            renderer = deviation;
        } else {
            final XYErrorRenderer errors = new XYErrorRenderer();
            errors.setDrawXError(false);
            errors.setDrawYError(true);
            errors.setCapLength(6);
            errors.setErrorStroke(new BasicStroke(1.5f));
            // Between categories a line means nothing: markers and their bars only.
            errors.setDefaultLinesVisible(categories.isEmpty());
            renderer = errors;
        }
        style(renderer, indices);
        for (int i = 0; i < indices.size(); i++) {
            renderer.setSeriesFillPaint(i, PALETTE[indices.get(i) % PALETTE.length]);
        }
        return renderer;
    }

    private XYLineAndShapeRenderer lineRenderer(final List<Integer> indices) {
        final XYLineAndShapeRenderer renderer =
                new XYLineAndShapeRenderer(categories.isEmpty(), true);
        style(renderer, indices);
        for (int i = 0; i < indices.size(); i++) {
            if (series.get(indices.get(i)).dashed()) {
                renderer.setSeriesShapesVisible(i, false);
            }
        }
        return renderer;
    }

    private void style(final XYLineAndShapeRenderer renderer, final List<Integer> indices) {
        for (int i = 0; i < indices.size(); i++) {
            final Series s = series.get(indices.get(i));
            renderer.setSeriesPaint(i, PALETTE[indices.get(i) % PALETTE.length]);
            renderer.setSeriesStroke(i, stroke(s.dashed()));
            renderer.setSeriesShape(i, new Ellipse2D.Double(-3.5, -3.5, 7, 7));
        }
    }

    private static Stroke stroke(final boolean dashed) {
        return dashed
                ? new BasicStroke(
                        1.5f,
                        BasicStroke.CAP_BUTT,
                        BasicStroke.JOIN_ROUND,
                        1,
                        new float[] {6, 4},
                        0)
                : new BasicStroke(2f);
    }

    private static String number(final double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6g", v);
    }
}
