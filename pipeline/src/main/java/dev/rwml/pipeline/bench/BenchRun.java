package dev.rwml.pipeline.bench;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.embedded.EmbeddedCluster;
import dev.rwml.pipeline.bench.BenchState.Step;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;

/**
 * The paper's comparison at small scale, on the embedded cluster under one directory: one base
 * world model (version 0 of run {@code bench-base}) trained by SFT on a pretraining slice of
 * ALFWorld in both command grammars; a filter model (the base SFT'd on a validation slice, as the
 * paper's); then per seed one RWML data slice of new episodes in the current grammar and the arms
 * trained from copies of the same base on that same slice (WM-SFT, RWML on what the offline filter
 * kept, RWML without a filter, optionally the online rule); then an evaluation of the base and
 * every arm, at its last version and at RWML's number of optimizer steps, with paired differences.
 *
 * <p>Resumable: the cluster keeps its topics under the directory, {@code bench.properties} records
 * the settings and the slices' offsets, and a finished step writes a marker under {@code done/}; a
 * rerun skips what is marked, and an arm that was interrupted is trained again into a fresh run.
 */
public final class BenchRun {

    /** The base model's run. */
    public static final String BASE_RUN = "bench-base";

    /** The filter model's run (the base SFT'd on the validation slice). */
    public static final String FILTER_RUN = "bench-filter";

    /**
     * What to run.
     *
     * @param dir the bench's directory: cluster, stream state, markers, report
     * @param demo model size, sampling and the stages' settings the bench starts from
     * @param data how much data each step gets
     * @param training the arms and how they train
     * @param eval how the models are evaluated
     */
    public record Settings(Path dir, DemoSettings demo, Data data, Training training, Eval eval) {
        public Settings {
            dir = dir.toAbsolutePath();
        }

        /** What must match for a rerun to resume (everything that changes a trained model). */
        Map<String, String> identity() {
            final Map<String, String> m = new TreeMap<>();
            m.put("model", demo.modelPreset());
            m.put("epsilon", Double.toString(demo.epsilon()));
            m.put("init.steps", Integer.toString(training.baseSteps()));
            m.put("pretrain.episodes", Integer.toString(data.pretrainEpisodes()));
            m.put("older.grammar.episodes", Integer.toString(data.olderGrammarEpisodes()));
            m.put("filter.episodes", Integer.toString(data.filterEpisodes()));
            m.put("slice.episodes", Integer.toString(data.sliceEpisodes()));
            m.put("epochs", Integer.toString(training.epochs()));
            m.put("round.transitions", Integer.toString(training.roundTransitions()));
            m.put("groups.per.step", Integer.toString(training.groupsPerStep()));
            m.put("learning.rate", Double.toString(training.learningRate()));
            m.put("warmup.fraction", Double.toString(training.warmupFraction()));
            m.put("filter.tries", Integer.toString(training.filterTries()));
            m.put("filter.model", training.filterIsBase() ? "base" : "sft");
            m.put("max.new.tokens", Integer.toString(training.maxNewTokens()));
            training.armSettings().forEach((arm, kv) -> m.put("arm." + arm.id(), kv.toString()));
            return m;
        }
    }

    /**
     * The bench's data, in episodes of ALFWorld's train split.
     *
     * @param seeds seeds, each with its own RWML slice (and sampling and subsampling draws)
     * @param pretrainEpisodes the base's pretraining episodes in the current grammar
     * @param olderGrammarEpisodes the base's pretraining episodes in the older grammar: the skill
     *     the arms do not train, where forgetting is measured
     * @param filterEpisodes the validation slice the filter model is SFT'd on
     * @param sliceEpisodes RWML episodes per seed
     */
    public record Data(
            int seeds,
            int pretrainEpisodes,
            int olderGrammarEpisodes,
            int filterEpisodes,
            int sliceEpisodes) {
        public Data {
            if (seeds < 1) {
                throw new IllegalArgumentException("--seeds must be at least 1, got " + seeds);
            }
            if (pretrainEpisodes < 1 || filterEpisodes < 1 || sliceEpisodes < 1) {
                throw new IllegalArgumentException(
                        "--episodes and the pretraining and filter episodes must be at least 1");
            }
        }
    }

    /**
     * The arms and how they train.
     *
     * @param arms the arms trained per seed
     * @param baseSteps SFT steps of the base model
     * @param epochs how many times each arm replays its slice
     * @param roundTransitions about how many transitions each replay round holds (one version each)
     * @param groupsPerStep groups per optimizer step
     * @param learningRate the arms' learning rate
     * @param warmupFraction learning-rate warmup as a fraction of the most optimizer steps a slice
     *     allows (transitions x epochs / groups per step)
     * @param filterTries K: the filter model's tries per transition
     * @param filterIsBase judge with the base itself instead of the SFT'd filter model
     * @param maxNewTokens the token cap of every sample: training, the filter and evaluation
     * @param armSettings per arm, stage settings over the bench's ({@code trainer.KEY=V} etc.)
     */
    public record Training(
            List<Arm> arms,
            int baseSteps,
            int epochs,
            int roundTransitions,
            int groupsPerStep,
            double learningRate,
            double warmupFraction,
            int filterTries,
            boolean filterIsBase,
            int maxNewTokens,
            Map<Arm, Map<String, String>> armSettings) {
        public Training {
            if (arms.isEmpty()) {
                throw new IllegalArgumentException("--arms must name at least one arm");
            }
            if (epochs < 1
                    || roundTransitions < 1
                    || groupsPerStep < 1
                    || filterTries < 1
                    || maxNewTokens < 1) {
                throw new IllegalArgumentException(
                        "--epochs, --round-transitions, --groups-per-step, --filter-tries and"
                                + " --max-new-tokens must be at least 1");
            }
            if (warmupFraction < 0 || warmupFraction >= 1) {
                throw new IllegalArgumentException(
                        "--warmup-fraction must be in [0, 1), got " + warmupFraction);
            }
            arms = List.copyOf(arms);
            final Map<Arm, Map<String, String>> copy = new EnumMap<>(Arm.class);
            armSettings.forEach((arm, kv) -> copy.put(arm, Map.copyOf(new TreeMap<>(kv))));
            armSettings = Collections.unmodifiableMap(copy);
        }

        /** Whether any arm trains on what the offline filter kept. */
        boolean filters() {
            return arms.stream().anyMatch(Arm::filtered);
        }
    }

    /**
     * How the models are evaluated.
     *
     * @param transitions held-out valid_unseen transitions
     * @param perEpisode the most transitions taken from one episode
     * @param samples samples per held-out transition
     * @param temperature sampling temperature of those samples (a greedy pass is added)
     * @param bootstrap bootstrap resamples
     * @param agentEpisodes guided-agent episodes per model
     */
    public record Eval(
            int transitions,
            int perEpisode,
            int samples,
            double temperature,
            int bootstrap,
            int agentEpisodes) {
        public Eval {
            if (transitions < 1 || perEpisode < 1 || samples < 1) {
                throw new IllegalArgumentException(
                        "--eval-transitions, --per-episode and --eval-samples must be at least 1");
            }
        }
    }

    private final Settings settings;
    private final RunOutput output;
    private final ReportFiles reportFiles;

    /**
     * @param settings what to run
     * @param output where progress and live facts go
     * @param reportFiles writes the evaluation's report files
     */
    public BenchRun(
            final Settings settings, final RunOutput output, final ReportFiles reportFiles) {
        this.settings = settings;
        this.output = output;
        this.reportFiles = reportFiles;
    }

    /** Writes an evaluation's report files into a directory, as {@code rwml eval} does. */
    @FunctionalInterface
    public interface ReportFiles {

        /** Writes {@code report}'s files under {@code dir}. */
        void write(EvalReport report, Path dir) throws IOException;
    }

    /** Runs what is not done yet, then evaluates everything into {@code <dir>/report/}. */
    public void run() throws IOException, InterruptedException {
        final BenchState state = BenchState.resume(settings.dir(), settings.identity());
        say("Starting the embedded Kafka broker and schema registry under %s ...", settings.dir());
        try (EmbeddedCluster cluster = EmbeddedCluster.start(settings.dir().resolve("cluster"))) {
            final Connection connection =
                    Connection.of(cluster.bootstrapServers(), cluster.schemaRegistryUrl());
            createTopics(connection);
            final long started = System.nanoTime();
            final BenchData data = new BenchData(connection, settings, state, output);
            data.pretraining();
            new BenchBase(connection, settings, state, output).ensure();
            say("Base ready (%.0f s into the bench)", (System.nanoTime() - started) / 1e9);
            final BenchArms arms = new BenchArms(connection, settings, output);
            final Optional<BenchArms.FilterModel> filter =
                    settings.training().filters()
                            ? Optional.of(filterModel(data, arms, state, started))
                            : Optional.empty();
            final Map<Integer, Map<Arm, String>> runs = new TreeMap<>();
            final List<Arm> trainedArms = settings.training().arms();
            final int total = settings.data().seeds() * trainedArms.size();
            int step = 0;
            for (int seed = 1; seed <= settings.data().seeds(); seed++) {
                data.slice(seed);
                for (final Arm arm : trainedArms) {
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
                        final long t0 = System.nanoTime();
                        run =
                                arms.train(
                                        arm,
                                        seed,
                                        state.slice(seed),
                                        filter,
                                        new LiveFacts.Bar("bench arms", step - 1, total));
                        state.markDone(marker, run);
                        say(
                                "[%d/%d] %s seed %d: trained in %.0f s",
                                step, total, arm.id(), seed, (System.nanoTime() - t0) / 1e9);
                    }
                    runs.computeIfAbsent(seed, k -> new EnumMap<>(Arm.class)).put(arm, run);
                }
            }
            report(connection, arms, runs, started);
        }
    }

    /** The filter model: trained once on the validation slice, or the base itself. */
    private BenchArms.FilterModel filterModel(
            final BenchData data, final BenchArms arms, final BenchState state, final long started)
            throws IOException, InterruptedException {
        if (settings.training().filterIsBase()) {
            return new BenchArms.FilterModel(BASE_RUN, 0);
        }
        final Optional<String> before = state.done(Step.FILTER_MODEL);
        if (before.isPresent()) {
            say("Filter model: done before (%s)", before.get());
            return BenchArms.FilterModel.parse(before.get());
        }
        data.validation();
        final long t0 = System.nanoTime();
        say("Filter model: SFT of a copy of the base on the validation slice ...");
        final BenchArms.FilterModel model =
                arms.trainFilterModel(state.slice(BenchState.VALIDATION));
        state.markDone(Step.FILTER_MODEL, model.text());
        say(
                "Filter model: version %d of run %s in %.0f s (%.0f s into the bench)",
                model.version(),
                model.run(),
                (System.nanoTime() - t0) / 1e9,
                (System.nanoTime() - started) / 1e9);
        return model;
    }

    /** Every version of each arm's run, by run. */
    private static Map<String, List<ModelVersion>> trainedVersions(
            final Connection connection, final Map<Integer, Map<Arm, String>> runs) {
        final Map<String, List<ModelVersion>> out = new TreeMap<>();
        runs.values()
                .forEach(
                        byArm ->
                                byArm.values()
                                        .forEach(
                                                run ->
                                                        out.put(
                                                                run,
                                                                RunVersions.of(connection, run))));
        return out;
    }

    /** Evaluates the base and every arm's runs, and writes the report and bench.md. */
    private void report(
            final Connection connection,
            final BenchArms arms,
            final Map<Integer, Map<Arm, String>> runs,
            final long started)
            throws IOException {
        final Map<String, Long> matched = arms.matchedUpdates(runs);
        final Map<String, List<String>> versions = new LinkedHashMap<>();
        final List<String> agentRuns = new ArrayList<>();
        runs.values()
                .forEach(
                        byArm ->
                                byArm.forEach(
                                        (arm, run) -> {
                                            versions.put(
                                                    run,
                                                    matched.containsKey(run)
                                                            ? List.of(
                                                                    Long.toString(matched.get(run)),
                                                                    "latest")
                                                            : List.of("latest"));
                                            if (arm == Arm.RWML || arm == Arm.WM_SFT) {
                                                agentRuns.add(run);
                                            }
                                        }));
        say(
                "Evaluating the base, %d trained models and %d versions at RWML's number of"
                        + " updates (%.0f s into the bench) ...",
                versions.size(), matched.size(), (System.nanoTime() - started) / 1e9);
        final long t0 = System.nanoTime();
        final EvalReport report =
                new BenchEvaluation(settings, this::say).run(connection, versions, agentRuns);
        say("Evaluation took %.0f s", (System.nanoTime() - t0) / 1e9);
        final Map<String, Long> steps = new TreeMap<>();
        for (final EvalReport.ModelResult m : report.models()) {
            steps.put(m.label(), m.version() == 0 ? 0 : arms.stepsAt(m.run(), m.version()));
        }
        final Path reportDir = settings.dir().resolve("report");
        reportFiles.write(report, reportDir);
        Files.writeString(
                reportDir.resolve("bench.md"),
                new BenchSummary(
                                settings,
                                report,
                                runs,
                                matched,
                                steps,
                                filtered(arms, runs),
                                trainedVersions(connection, runs))
                        .markdown(),
                StandardCharsets.UTF_8);
        say(
                "Bench finished in %.0f s: %s (and report.html, report.md, transitions.csv)",
                (System.nanoTime() - started) / 1e9, reportDir.resolve("bench.md"));
    }

    /** Per seed, what the offline filter decided on the RWML arm's slice. */
    private static Map<Integer, BenchArms.Filtered> filtered(
            final BenchArms arms, final Map<Integer, Map<Arm, String>> runs) {
        final Map<Integer, BenchArms.Filtered> out = new TreeMap<>();
        runs.forEach(
                (seed, byArm) -> {
                    final String rwml = byArm.get(Arm.RWML);
                    if (rwml != null) {
                        out.put(seed, arms.filtered(rwml));
                    }
                });
        return out;
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

    private void say(final String format, final Object... args) {
        output.say(format, args);
    }
}
