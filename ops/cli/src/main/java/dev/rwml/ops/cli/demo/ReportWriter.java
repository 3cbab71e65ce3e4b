package dev.rwml.ops.cli.demo;

import dev.rwml.evaluation.HeldOutEvaluator;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.cli.status.RunObserver.PassRate;
import dev.rwml.ops.cli.web.LineChart;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a run's report: {@code index.html} with its charts inline as SVG (held-out accuracy per
 * version against the base, training pass rate per version, KL to the base, throughput per stage),
 * the same charts as PNG files, and the same figures as CSV files beside it. The charts are drawn
 * by {@link LineChart}, the renderer {@code rwml eval} and the status page use.
 */
public final class ReportWriter {

    /** The files a report consists of, relative to its directory. */
    public static final List<String> FILES =
            List.of(
                    "index.html",
                    "heldout.png",
                    "pass-rate.png",
                    "kl.png",
                    "throughput.png",
                    "heldout.csv",
                    "versions.csv",
                    "pass-rate.csv",
                    "throughput.csv");

    /**
     * What the report shows.
     *
     * @param run the run name
     * @param summary lines shown at the top (settings, totals, timings)
     * @param versions committed versions by number
     * @param passRates pass rate by the version that generated the groups
     * @param throughput cumulative groups per stage over time
     * @param heldOut held-out scores per evaluated version (version 0 first), empty when skipped
     * @param heldOutNote why held-out scores are missing or partial, empty otherwise
     */
    public record Report(
            String run,
            List<String> summary,
            Map<Long, ModelVersion> versions,
            Map<Long, PassRate> passRates,
            List<RunMonitor.ThroughputSample> throughput,
            List<HeldOutEvaluator.Score> heldOut,
            Optional<String> heldOutNote) {}

    private ReportWriter() {}

    /** Writes every file of {@link #FILES} under {@code dir} (created, earlier files replaced). */
    public static Path write(final Report report, final Path dir) throws IOException {
        Files.createDirectories(dir);
        writeCsvs(report, dir);
        final Map<String, LineChart> charts = new java.util.LinkedHashMap<>();
        charts.put("heldout", heldOutChart(report));
        charts.put("pass-rate", passRateChart(report));
        charts.put("kl", klChart(report));
        charts.put("throughput", throughputChart(report));
        for (final Map.Entry<String, LineChart> e : charts.entrySet()) {
            e.getValue().writePng(dir.resolve(e.getKey() + ".png"));
        }
        final Path html = dir.resolve("index.html");
        Files.writeString(html, html(report, charts), StandardCharsets.UTF_8);
        return html;
    }

    private static void writeCsvs(final Report r, final Path dir) throws IOException {
        final StringBuilder heldOut =
                new StringBuilder(
                        "version,pass_rate,pass_rate_low,pass_rate_high,mean_similarity,samples\n");
        for (final HeldOutEvaluator.Score s : r.heldOut()) {
            heldOut.append(
                    String.format(
                            Locale.ROOT,
                            "%d,%.4f,%.4f,%.4f,%.4f,%d%n",
                            s.version(),
                            s.passRate(),
                            s.passInterval().low(),
                            s.passInterval().high(),
                            s.meanSimilarity(),
                            s.samples()));
        }
        Files.writeString(dir.resolve("heldout.csv"), heldOut.toString());
        final StringBuilder versions =
                new StringBuilder(
                        "version,parent,created_at,objective,steps,groups,tokens,dropped_stale,"
                                + "skipped_zero_advantage,train_pass_rate,mean_reward,kl,loss\n");
        for (final ModelVersion v : r.versions().values()) {
            versions.append(
                    String.format(
                            Locale.ROOT,
                            "%d,%s,%s,%s,%d,%d,%d,%d,%d,%s,%s,%s,%s%n",
                            v.getVersion(),
                            v.getParentVersion() == null ? "" : v.getParentVersion().toString(),
                            v.getCreatedAt(),
                            v.getObjective(),
                            v.getCounters().getSteps(),
                            v.getCounters().getGroups(),
                            v.getCounters().getTokens(),
                            v.getCounters().getDroppedStale(),
                            v.getCounters().getSkippedZeroAdvantage(),
                            metric(v, "passRate"),
                            metric(v, "meanReward"),
                            metric(v, "kl"),
                            metric(v, "loss")));
        }
        Files.writeString(dir.resolve("versions.csv"), versions.toString());
        final StringBuilder pass =
                new StringBuilder("behaviour_version,groups,kept,easy,mean_pass_rate\n");
        r.passRates()
                .forEach(
                        (version, p) ->
                                pass.append(
                                        String.format(
                                                Locale.ROOT,
                                                "%d,%d,%d,%d,%.4f%n",
                                                version,
                                                p.groups(),
                                                p.kept(),
                                                p.easy(),
                                                p.mean())));
        Files.writeString(dir.resolve("pass-rate.csv"), pass.toString());
        final StringBuilder tp =
                new StringBuilder(
                        "seconds,predicted_groups,rewarded_groups,trained_groups,lag,"
                                + "prediction_groups_per_s,reward_groups_per_s,trainer_groups_per_s\n");
        final List<double[]> rates = RunMonitor.rates(r.throughput());
        for (int i = 0; i < r.throughput().size(); i++) {
            final RunMonitor.ThroughputSample s = r.throughput().get(i);
            final double[] rate = rates.get(i);
            tp.append(
                    String.format(
                            Locale.ROOT,
                            "%.1f,%.0f,%.0f,%.0f,%d,%.3f,%.3f,%.3f%n",
                            s.seconds(),
                            s.predicted(),
                            s.rewarded(),
                            s.trained(),
                            s.lag(),
                            rate[0],
                            rate[1],
                            rate[2]));
        }
        Files.writeString(dir.resolve("throughput.csv"), tp.toString());
    }

    private static String metric(final ModelVersion v, final String key) {
        final Double value = v.getMetrics() == null ? null : v.getMetrics().get(key);
        return value == null ? "" : String.format(Locale.ROOT, "%.5f", value);
    }

    private static LineChart heldOutChart(final Report r) {
        final LineChart chart =
                new LineChart(
                        "Held-out world-model accuracy (" + HeldOutEvaluator.SET + ")",
                        "model version",
                        "pass rate (fraction of samples)");
        final List<HeldOutEvaluator.Score> scores = r.heldOut();
        if (scores.isEmpty()) {
            return chart;
        }
        final double[] xs = new double[scores.size()];
        final double[] ys = new double[scores.size()];
        final double[] lows = new double[scores.size()];
        final double[] highs = new double[scores.size()];
        for (int i = 0; i < scores.size(); i++) {
            xs[i] = scores.get(i).version();
            ys[i] = scores.get(i).passRate();
            lows[i] = scores.get(i).passInterval().low();
            highs[i] = scores.get(i).passInterval().high();
        }
        final double base = scores.get(0).passRate();
        chart.bands();
        chart.add(
                LineChart.Series.withInterval("RWML versions (95% interval)", xs, ys, lows, highs));
        chart.add(
                new LineChart.Series(
                        "base (version 0)",
                        new double[] {xs[0], xs[xs.length - 1]},
                        new double[] {base, base},
                        true));
        return chart;
    }

    private static LineChart passRateChart(final Report r) {
        final LineChart chart =
                new LineChart(
                        "Training pass rate per version",
                        "behaviour version (the version that generated the groups)",
                        "pass rate (fraction of samples)");
        final double[] xs = new double[r.passRates().size()];
        final double[] ys = new double[xs.length];
        int i = 0;
        for (final Map.Entry<Long, PassRate> e : r.passRates().entrySet()) {
            xs[i] = e.getKey();
            ys[i++] = e.getValue().mean();
        }
        return chart.add(new LineChart.Series("groups generated", xs, ys, false));
    }

    private static LineChart klChart(final Report r) {
        final LineChart chart =
                new LineChart(
                        "KL to the base model",
                        "model version",
                        "KL (k3 estimate, nats per token)");
        final List<double[]> points = new ArrayList<>();
        for (final ModelVersion v : r.versions().values()) {
            final Double kl = v.getMetrics() == null ? null : v.getMetrics().get("kl");
            if (v.getVersion() == 0) {
                points.add(new double[] {0, 0});
            } else if (kl != null) {
                points.add(new double[] {v.getVersion(), kl});
            }
        }
        return chart.add(LineChart.Series.of("mean KL in the version's steps", points));
    }

    private static LineChart throughputChart(final Report r) {
        final LineChart chart =
                new LineChart(
                        "Throughput per stage",
                        "time since the stages started (s)",
                        "groups per second");
        final List<double[]> rates = RunMonitor.rates(r.throughput());
        final String[] names = {"prediction", "reward", "trainer"};
        for (int k = 0; k < names.length; k++) {
            final double[] xs = new double[rates.size()];
            final double[] ys = new double[rates.size()];
            for (int i = 0; i < rates.size(); i++) {
                xs[i] = r.throughput().get(i).seconds();
                ys[i] = rates.get(i)[k];
            }
            chart.add(new LineChart.Series(names[k], xs, ys, false));
        }
        return chart;
    }

    private static String html(final Report r, final Map<String, LineChart> charts) {
        final StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>RWML run ")
                .append(escape(r.run()))
                .append(
                        "</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}")
                .append(
                        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;")
                .append("text-align:right}</style></head><body>\n<h1>RWML run ")
                .append(escape(r.run()))
                .append("</h1>\n<ul>\n");
        r.summary().forEach(line -> h.append("<li>").append(escape(line)).append("</li>\n"));
        h.append("</ul>\n<h2>Held-out world-model accuracy</h2>\n");
        r.heldOutNote().ifPresent(n -> h.append("<p>").append(escape(n)).append("</p>\n"));
        h.append(figure(charts, "heldout"))
                .append("<table><tr><th>version</th><th>pass rate [95% interval]</th>")
                .append("<th>mean similarity</th>")
                .append("<th>samples</th></tr>\n");
        for (final HeldOutEvaluator.Score s : r.heldOut()) {
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<tr><td>%d</td><td>%s</td><td>%.3f</td><td>%d</td></tr>%n",
                            s.version(),
                            s.passInterval().format(),
                            s.meanSimilarity(),
                            s.samples()));
        }
        h.append("</table> <a href=\"heldout.csv\">heldout.csv</a>\n")
                .append("<h2>Training pass rate per version</h2>\n")
                .append(figure(charts, "pass-rate"))
                .append("<p><a href=\"pass-rate.csv\">pass-rate.csv</a>, ")
                .append("<a href=\"versions.csv\">versions.csv</a></p>\n")
                .append(trainerTable(r))
                .append("<h2>KL to the base model</h2>\n")
                .append(figure(charts, "kl"))
                .append("<h2>Throughput</h2>\n")
                .append(figure(charts, "throughput"))
                .append("<p><a href=\"throughput.csv\">throughput.csv</a></p>\n</body></html>\n");
        return h.toString();
    }

    /**
     * Per version, what the trainer did with the groups it read: trained, dropped as too stale
     * (generated more than the staleness bound before), skipped for zero advantage; and how soon
     * the prediction stage served it.
     */
    private static String trainerTable(final Report r) {
        long trained = 0;
        long stale = 0;
        final StringBuilder rows = new StringBuilder();
        for (final ModelVersion v : r.versions().values()) {
            if (v.getVersion() == 0) {
                continue;
            }
            final var c = v.getCounters();
            trained += c.getGroups();
            stale += c.getDroppedStale();
            final PassRate served = r.passRates().get(v.getVersion());
            rows.append(
                    String.format(
                            Locale.ROOT,
                            "<tr><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td>"
                                    + "</tr>%n",
                            v.getVersion(),
                            c.getSteps(),
                            c.getGroups(),
                            c.getDroppedStale(),
                            c.getSkippedZeroAdvantage(),
                            served == null || served.firstGeneratedAt() == null
                                    ? "-"
                                    : String.format(
                                            Locale.ROOT,
                                            "%.1f",
                                            java.time.Duration.between(
                                                                    v.getCreatedAt(),
                                                                    served.firstGeneratedAt())
                                                            .toMillis()
                                                    / 1e3)));
        }
        long rewarded = 0;
        for (final PassRate p : r.passRates().values()) {
            rewarded += p.groups();
        }
        return String.format(
                        Locale.ROOT,
                        "<h2>Trainer per version</h2>%n<p>%d groups rewarded, %d trained, %d"
                                + " dropped as stale (%.1f%% of those rewarded).</p>%n",
                        rewarded,
                        trained,
                        stale,
                        rewarded == 0 ? 0.0 : 100.0 * stale / rewarded)
                + "<table><tr><th>version</th><th>steps</th><th>groups trained</th>"
                + "<th>dropped stale</th><th>skipped (zero advantage)</th>"
                + "<th>served after (s): from its commit to its first rewarded prediction</th>"
                + "</tr>\n"
                + rows
                + "</table>\n";
    }

    /** A chart inline as SVG, with a link to its PNG. */
    private static String figure(final Map<String, LineChart> charts, final String name) {
        return "<figure>"
                + charts.get(name).svg()
                + "<figcaption><a href=\""
                + name
                + ".png\">"
                + name
                + ".png</a></figcaption></figure>\n";
    }

    private static String escape(final String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
