package dev.rwml.ops.cli.web;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The one chart renderer of the CLI: a small line chart drawn with Java2D as PNG, for the demo's
 * report files and the charts of the status page alike. A few named series of (x, y) points, axes
 * with min/max labels, and a legend; no charting library, so neither adds a dependency.
 */
public final class LineChart {

    private static final int DEFAULT_WIDTH = 720;
    private static final int DEFAULT_HEIGHT = 360;
    private static final int LEFT = 70;
    private static final int RIGHT = 170;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e)
    };

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final int width;
    private final int height;
    private final List<Series> series = new ArrayList<>();

    /**
     * One line.
     *
     * @param name the legend text
     * @param xs x values
     * @param ys y values, as many as x values
     * @param dashed drawn dashed (a reference line such as the base model)
     */
    public record Series(String name, double[] xs, double[] ys, boolean dashed) {
        public Series {
            if (xs.length != ys.length) {
                throw new IllegalArgumentException(
                        "series " + name + " has " + xs.length + " x and " + ys.length + " y");
            }
        }

        /** A solid series of {@code (x, y)} pairs. */
        public static Series of(final String name, final List<double[]> points) {
            return new Series(
                    name,
                    points.stream().mapToDouble(p -> p[0]).toArray(),
                    points.stream().mapToDouble(p -> p[1]).toArray(),
                    false);
        }
    }

    /** A chart of the default size, 720 by 360 pixels. */
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
        if (width <= LEFT + RIGHT || height <= TOP + BOTTOM) {
            throw new IllegalArgumentException(
                    "a chart needs more than "
                            + (LEFT + RIGHT)
                            + " by "
                            + (TOP + BOTTOM)
                            + " pixels");
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

    /** Draws the chart and writes it to {@code file} as PNG. */
    public void writePng(final Path file) throws IOException {
        Files.write(file, png());
    }

    /** Draws the chart as PNG bytes. */
    public byte[] png() {
        final BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = image.createGraphics();
        try {
            draw(g);
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

    private void draw(final Graphics2D g) {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        double minX = Double.POSITIVE_INFINITY;
        double maxX = Double.NEGATIVE_INFINITY;
        double minY = 0;
        double maxY = Double.NEGATIVE_INFINITY;
        for (final Series s : series) {
            for (int i = 0; i < s.xs().length; i++) {
                minX = Math.min(minX, s.xs()[i]);
                maxX = Math.max(maxX, s.xs()[i]);
                minY = Math.min(minY, s.ys()[i]);
                maxY = Math.max(maxY, s.ys()[i]);
            }
        }
        if (minX == Double.POSITIVE_INFINITY) {
            minX = 0;
            maxX = 1;
            maxY = 1;
        }
        if (maxX <= minX) {
            maxX = minX + 1;
        }
        if (maxY <= minY) {
            maxY = minY + 1;
        }
        maxY += (maxY - minY) * 0.05;
        final int plotW = width - LEFT - RIGHT;
        final int plotH = height - TOP - BOTTOM;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, LEFT, 24);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawRect(LEFT, TOP, plotW, plotH);
        g.drawString(format(minY), 8, TOP + plotH);
        g.drawString(format(maxY), 8, TOP + 12);
        g.drawString(format(minX), LEFT, TOP + plotH + 16);
        final String maxXText = format(maxX);
        g.drawString(
                maxXText,
                LEFT + plotW - g.getFontMetrics().stringWidth(maxXText),
                TOP + plotH + 16);
        g.drawString(
                xLabel, LEFT + plotW / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, height - 12);
        g.drawString(yLabel, 8, TOP + plotH / 2);
        int legendY = TOP + 14;
        for (int k = 0; k < series.size(); k++) {
            final Series s = series.get(k);
            final Color color = PALETTE[k % PALETTE.length];
            g.setColor(color);
            g.setStroke(stroke(s.dashed()));
            final Path2D.Double path = new Path2D.Double();
            for (int i = 0; i < s.xs().length; i++) {
                final double px = LEFT + (s.xs()[i] - minX) / (maxX - minX) * plotW;
                final double py = TOP + plotH - (s.ys()[i] - minY) / (maxY - minY) * plotH;
                if (i == 0) {
                    path.moveTo(px, py);
                } else {
                    path.lineTo(px, py);
                }
                if (!s.dashed()) {
                    g.fillOval((int) px - 3, (int) py - 3, 6, 6);
                }
            }
            g.draw(path);
            g.drawLine(width - RIGHT + 10, legendY - 4, width - RIGHT + 30, legendY - 4);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), width - RIGHT + 36, legendY);
            legendY += 18;
        }
    }

    private static BasicStroke stroke(final boolean dashed) {
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

    private static String format(final double v) {
        return Math.abs(v) >= 100 || v == Math.rint(v)
                ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.3g", v);
    }
}
