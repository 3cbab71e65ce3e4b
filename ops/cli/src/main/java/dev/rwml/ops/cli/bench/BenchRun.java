package dev.rwml.ops.cli.bench;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.ops.cli.Progress;
import dev.rwml.ops.cli.bench.BenchState.Step;
import dev.rwml.ops.cli.demo.DemoSettings;
import dev.rwml.ops.cli.eval.ReportWriter;
import dev.rwml.ops.embedded.EmbeddedCluster;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;

/**
 * The paper's comparison at small scale, on the embedded cluster under one directory: one base
 * world model (version 0 of run {@code bench-base}) trained by SFT on a pretraining slice, then per
 * seed one RWML data slice of new episodes and four arms trained from copies of the same base on
 * that same slice: the base itself (no training), WM-SFT (the trainer's {@code sft} objective on
 * the observed next states), RWML (GRPO with the too-easy subsampling) and RWML without subsampling
 * ({@code easy.keep.probability=1}); then {@code rwml eval} with the guided agent on every trained
 * model and the base.
 *
 * <p>Resumable: the cluster keeps its topics under the directory, {@code bench.properties} records
 * the settings and the slices' offsets, and a finished step writes a marker under {@code done/}; a
 * rerun skips what is marked, and an arm that was interrupted is trained again into a fresh run.
 */
public final class BenchRun {

    /** The base model's run. */
    public static final String BASE_RUN = "bench-base";

    /**
     * What to run.
     *
     * @param dir the bench's directory: cluster, stream state, markers, report
     * @param demo model size, base SFT steps, pretraining episodes and the stages' settings
     * @param seeds how many seeds (data slices), at least 1
     * @param sliceEpisodes RWML episodes per seed
     * @param epochs how many times each arm replays its slice
     * @param evalTransitions held-out transitions per split
     * @param evalSamples samples per held-out transition
     * @param bootstrap bootstrap resamples
     * @param agentEpisodes guided-agent episodes per split
     */
    public record Settings(
            Path dir,
            DemoSettings demo,
            int seeds,
            int sliceEpisodes,
            int epochs,
            int evalTransitions,
            int evalSamples,
            int bootstrap,
            int agentEpisodes) {
        public Settings {
            if (seeds < 1) {
                throw new IllegalArgumentException("--seeds must be at least 1, got " + seeds);
            }
            if (sliceEpisodes < 1 || epochs < 1) {
                throw new IllegalArgumentException("--episodes and --epochs must be at least 1");
            }
            dir = dir.toAbsolutePath();
        }

        /** What must match for a rerun to resume (everything that changes a result). */
        Map<String, String> identity() {
            final Map<String, String> m = new TreeMap<>();
            m.put("model", demo.modelPreset());
            m.put("init.steps", Integer.toString(demo.initSteps()));
            m.put("pretrain.episodes", Integer.toString(demo.pretrainEpisodes()));
            m.put("slice.episodes", Integer.toString(sliceEpisodes));
            m.put("epochs", Integer.toString(epochs));
            m.put("epsilon", Double.toString(demo.epsilon()));
            return m;
        }
    }

    /**
     * What the bench produced.
     *
     * @param report the evaluation of every model
     * @param reportDir where report.html, report.md and the CSV files are
     * @param trainedArms arms trained by this invocation (the others were already done)
     */
    public record Result(EvalReport report, Path reportDir, int trainedArms) {}

    private final Settings settings;
    private final PrintWriter out;

    public BenchRun(final Settings settings, final PrintWriter out) {
        this.settings = settings;
        this.out = out;
    }

    /** Runs what is not done yet, then evaluates everything. */
    public Result run() throws IOException, InterruptedException {
        final BenchState state = BenchState.resume(settings.dir(), settings.identity());
        say("Starting the embedded Kafka broker and schema registry under %s ...", settings.dir());
        try (EmbeddedCluster cluster = EmbeddedCluster.start(settings.dir().resolve("cluster"))) {
            final Connection connection =
                    Connection.of(cluster.bootstrapServers(), cluster.schemaRegistryUrl());
            createTopics(connection);
            final long started = System.nanoTime();
            final BenchData data = new BenchData(connection, settings, state, out);
            data.pretraining();
            new BenchBase(connection, settings.demo(), state, out).ensure();
            final BenchArms arms = new BenchArms(connection, settings, out);
            final Map<Integer, Map<Arm, String>> runs = new TreeMap<>();
            int trained = 0;
            final int total = settings.seeds() * Arm.values().length;
            int step = 0;
            for (int seed = 1; seed <= settings.seeds(); seed++) {
                data.slice(seed);
                for (final Arm arm : Arm.values()) {
                    step++;
                    final Step marker = Step.arm(arm, seed);
                    final Optional<String> before = state.done(marker);
                    final String run;
                    if (before.isPresent()) {
                        run = before.get();
                        say(
                                "[%d/%d] %s seed %d: done before (run %s)",
                                step, total, arm.id(), seed, run);
                    } else {
                        say(
                                "[%d/%d] %s seed %d: training (%.0f s into the bench) ...",
                                step, total, arm.id(), seed, (System.nanoTime() - started) / 1e9);
                        run = arms.train(arm, seed, state.slice(seed));
                        state.markDone(marker, run);
                        trained++;
                    }
                    runs.computeIfAbsent(seed, k -> new EnumMap<>(Arm.class)).put(arm, run);
                }
            }
            return report(connection, arms.matchedUpdates(runs), runs, trained, started);
        }
    }

    /** Evaluates the base and every arm's runs, and writes the report and bench.md. */
    private Result report(
            final Connection connection,
            final Map<String, Long> matched,
            final Map<Integer, Map<Arm, String>> runs,
            final int trained,
            final long started)
            throws IOException {
        final List<String> trainedRuns = new ArrayList<>();
        runs.values().forEach(byArm -> trainedRuns.addAll(byArm.values()));
        say(
                "Evaluating the base, %d trained models and %d versions at RWML's number of"
                        + " updates ...",
                trainedRuns.size(), matched.size());
        final EvalReport report =
                new BenchEvaluation(settings, this::say).run(connection, trainedRuns, matched);
        final Path reportDir = settings.dir().resolve("report");
        ReportWriter.writeFiles(report, reportDir);
        Files.writeString(
                reportDir.resolve("bench.md"),
                BenchSummary.markdown(report, settings.seeds(), matchedLabels(matched)),
                StandardCharsets.UTF_8);
        say(
                "Bench finished in %.0f s: %s (and bench.md, report.md)",
                (System.nanoTime() - started) / 1e9, reportDir.resolve("report.html"));
        return new Result(report, reportDir, trained);
    }

    /** The shared topics and the base run's. */
    private static void createTopics(final Connection connection) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = connection.admin()) {
            final List<TopicSpec<?, ?>> topics = new ArrayList<>(catalog.shared());
            topics.addAll(catalog.forRun(BASE_RUN));
            new TopicAdmin(admin, catalog).ensure(topics);
        }
    }

    /** The labels of the matched versions, as the summary table names models. */
    private static Set<String> matchedLabels(final Map<String, Long> matched) {
        final Set<String> labels = new HashSet<>();
        matched.forEach((run, version) -> labels.add(run + "@" + version));
        return labels;
    }

    private void say(final String format, final Object... args) {
        Progress.say(out, format, args);
    }
}
