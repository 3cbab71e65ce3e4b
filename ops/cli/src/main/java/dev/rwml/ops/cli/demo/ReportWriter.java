package dev.rwml.ops.cli.demo;

import dev.rwml.evaluation.VersionScore;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.cli.web.CsvTable;
import dev.rwml.ops.cli.web.HtmlTemplate;
import dev.rwml.ops.cli.web.LineChart;
import dev.rwml.pipeline.local.DemoRun;
import dev.rwml.pipeline.local.RunMonitor;
import dev.rwml.pipeline.watch.RunProgress.PassRate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
            List<VersionScore> heldOut,
            Optional<String> heldOutNote) {}

    private static final HtmlTemplate PAGE =
            HtmlTemplate.of(ReportWriter.class, "report.html.jinja");

    private ReportWriter() {}

    /** Writes every file of {@link #FILES} under {@code dir} (created, earlier files replaced). */
    public static Path write(final Report report, final Path dir) throws IOException {
        Files.createDirectories(dir);
        writeCsvs(report, dir);
        final Map<String, LineChart> charts = new LinkedHashMap<>();
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

    /** Writes the report of a demo that ran its stages under {@code dir}; returns its HTML page. */
    public static Path write(final DemoRun.Result demo, final Path dir) throws IOException {
        return write(
                new Report(
                        DemoRun.RUN,
                        demo.summary(),
                        demo.last().versions(),
                        demo.last().passRates(),
                        demo.last().throughput(),
                        demo.heldOut(),
                        demo.heldOutNote()),
                dir);
    }

    private static void writeCsvs(final Report r, final Path dir) throws IOException {
        final CsvTable heldOut =
                new CsvTable(
                        "version",
                        "pass_rate",
                        "pass_rate_low",
                        "pass_rate_high",
                        "mean_similarity",
                        "samples");
        for (final VersionScore s : r.heldOut()) {
            heldOut.row(
                    s.version(),
                    decimal("%.4f", s.passRate()),
                    decimal("%.4f", s.passInterval().low()),
                    decimal("%.4f", s.passInterval().high()),
                    decimal("%.4f", s.meanSimilarity()),
                    s.samples());
        }
        heldOut.write(dir.resolve("heldout.csv"));
        final CsvTable versions =
                new CsvTable(
                        "version",
                        "parent",
                        "created_at",
                        "objective",
                        "steps",
                        "groups",
                        "tokens",
                        "dropped_stale",
                        "skipped_zero_advantage",
                        "train_pass_rate",
                        "mean_reward",
                        "kl",
                        "loss");
        for (final ModelVersion v : r.versions().values()) {
            versions.row(
                    v.getVersion(),
                    v.getParentVersion(),
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
                    metric(v, "loss"));
        }
        versions.write(dir.resolve("versions.csv"));
        final CsvTable pass =
                new CsvTable("behaviour_version", "groups", "kept", "easy", "mean_pass_rate");
        r.passRates()
                .forEach(
                        (version, p) ->
                                pass.row(
                                        version,
                                        p.groups(),
                                        p.kept(),
                                        p.easy(),
                                        decimal("%.4f", p.mean())));
        pass.write(dir.resolve("pass-rate.csv"));
        final CsvTable throughput =
                new CsvTable(
                        "seconds",
                        "predicted_groups",
                        "rewarded_groups",
                        "trained_groups",
                        "lag",
                        "prediction_groups_per_s",
                        "reward_groups_per_s",
                        "trainer_groups_per_s");
        final List<double[]> rates = RunMonitor.rates(r.throughput());
        for (int i = 0; i < r.throughput().size(); i++) {
            final RunMonitor.ThroughputSample s = r.throughput().get(i);
            final double[] rate = rates.get(i);
            throughput.row(
                    decimal("%.1f", s.seconds()),
                    decimal("%.0f", s.predicted()),
                    decimal("%.0f", s.rewarded()),
                    decimal("%.0f", s.trained()),
                    s.lag(),
                    decimal("%.3f", rate[0]),
                    decimal("%.3f", rate[1]),
                    decimal("%.3f", rate[2]));
        }
        throughput.write(dir.resolve("throughput.csv"));
    }

    private static String metric(final ModelVersion v, final String key) {
        final Double value = v.getMetrics() == null ? null : v.getMetrics().get(key);
        return value == null ? "" : decimal("%.5f", value);
    }

    private static String decimal(final String format, final double value) {
        return String.format(Locale.ROOT, format, value);
    }

    private static LineChart heldOutChart(final Report r) {
        final LineChart chart =
                new LineChart(
                        "Held-out world-model accuracy (" + DemoRun.HELD_OUT_SET + ")",
                        "model version",
                        "pass rate (fraction of samples)");
        final List<VersionScore> scores = r.heldOut();
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
        final Map<String, String> svgs = new LinkedHashMap<>();
        charts.forEach((name, chart) -> svgs.put(name, chart.svg()));
        final List<List<String>> heldOut = new ArrayList<>();
        for (final VersionScore s : r.heldOut()) {
            heldOut.add(
                    List.of(
                            Long.toString(s.version()),
                            s.passInterval().format(),
                            decimal("%.3f", s.meanSimilarity()),
                            Integer.toString(s.samples())));
        }
        return PAGE.render(
                Map.of(
                        "run", r.run(),
                        "summary", r.summary(),
                        "heldOutNote", r.heldOutNote().orElse(""),
                        "charts", svgs,
                        "heldOut", heldOut,
                        "trainerSummary", trainerSummary(r),
                        "trainerRows", trainerRows(r)));
    }

    /** How many groups were rewarded, and how many of them the trainer trained or dropped. */
    private static String trainerSummary(final Report r) {
        long trained = 0;
        long stale = 0;
        for (final ModelVersion v : r.versions().values()) {
            if (v.getVersion() != 0) {
                trained += v.getCounters().getGroups();
                stale += v.getCounters().getDroppedStale();
            }
        }
        long rewarded = 0;
        for (final PassRate p : r.passRates().values()) {
            rewarded += p.groups();
        }
        return String.format(
                Locale.ROOT,
                "%d groups rewarded, %d trained, %d dropped as stale (%.1f%% of those rewarded).",
                rewarded,
                trained,
                stale,
                rewarded == 0 ? 0.0 : 100.0 * stale / rewarded);
    }

    /**
     * Per version, what the trainer did with the groups it read: trained, dropped as too stale
     * (generated more than the staleness bound before), skipped for zero advantage; and how soon
     * the prediction stage served it.
     */
    private static List<List<String>> trainerRows(final Report r) {
        final List<List<String>> rows = new ArrayList<>();
        for (final ModelVersion v : r.versions().values()) {
            if (v.getVersion() == 0) {
                continue;
            }
            final var c = v.getCounters();
            final PassRate served = r.passRates().get(v.getVersion());
            rows.add(
                    List.of(
                            Long.toString(v.getVersion()),
                            String.valueOf(c.getSteps()),
                            String.valueOf(c.getGroups()),
                            String.valueOf(c.getDroppedStale()),
                            String.valueOf(c.getSkippedZeroAdvantage()),
                            served == null || served.firstGeneratedAt() == null
                                    ? "-"
                                    : decimal(
                                            "%.1f",
                                            Duration.between(
                                                                    v.getCreatedAt(),
                                                                    served.firstGeneratedAt())
                                                            .toMillis()
                                                    / 1e3)));
        }
        return rows;
    }
}
