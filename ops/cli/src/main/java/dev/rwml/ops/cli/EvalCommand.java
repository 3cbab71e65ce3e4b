package dev.rwml.ops.cli;

import dev.rwml.evaluation.AgentEvaluation;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.EvalSettings;
import dev.rwml.evaluation.Evaluation;
import dev.rwml.evaluation.GuidedAgent;
import dev.rwml.evaluation.HeldOutSet;
import dev.rwml.evaluation.ModelCatalog;
import dev.rwml.evaluation.TrainingSpecs;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.eval.ReportWriter;
import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml eval}: world-model accuracy of chosen versions on held-out transitions that never
 * went to Kafka, with bootstrap intervals, and each model's drift from its run's version 0.
 */
@Command(
        name = "eval",
        footer = {
            "",
            "Examples:",
            "  ./rwml eval --run demo --versions 0,latest --out eval/",
            "  ./rwml eval --model-dir exported/ --transitions-file recorded.jsonl"
        },
        mixinStandardHelpOptions = true,
        description = {
            "Evaluate world models on held-out transitions generated here (never produced to"
                    + " Kafka) or read from a JSONL file of recorded episodes: pass rate at the"
                    + " run's training reward spec, at a strict threshold (> 0.9), exact match and"
                    + " mean similarity, overall, per task type and per next-state kind, each with"
                    + " a 95%% bootstrap interval over episodes (the held-out transitions are"
                    + " drawn at most --per-episode from each episode); with --greedy also the"
                    + " pass rates of one greedy sample, and the share of samples cut at"
                    + " --max-new-tokens.",
            "Drift per model from its run's version 0: the fraction of changed parameters"
                    + " (|w' - w| > 1e-3 max(|w|, |w'|)), KL(model || base) per token and"
                    + " perplexity on held-out ALFWorld and tau2 text.",
            "The same --seed gives the same numbers."
        })
final class EvalCommand implements Callable<Integer> {

    @Option(
            names = "--run",
            paramLabel = "NAME",
            description = "A run whose versions to evaluate; repeatable.")
    private List<String> runs = new ArrayList<>();

    @Option(
            names = "--versions",
            split = ",",
            defaultValue = "0,latest",
            paramLabel = "V",
            description =
                    "Versions of each run: numbers, latest or all (default: ${DEFAULT-VALUE}).")
    private List<String> versions;

    @Option(
            names = "--model-dir",
            paramLabel = "DIR",
            description =
                    "Also evaluate the checkpoint zips in DIR (written by `rwml models export`,"
                            + " <run>-v<N>.zip; <run>-v0.zip there is their base); repeatable.")
    private List<Path> modelDirs = new ArrayList<>();

    @Option(
            names = "--split",
            split = ",",
            paramLabel = "SET",
            description =
                    "Held-out sets: alfworld/valid_seen, alfworld/valid_unseen, tau2/test (retail"
                            + " and airline), retail/test, airline/test (default: the first three,"
                            + " or none with --transitions-file).")
    private List<String> splits = new ArrayList<>();

    @Option(
            names = "--transitions-file",
            paramLabel = "FILE",
            description =
                    "A JSONL file of recorded episodes in the format of `rwml env import`;"
                            + " repeatable.")
    private List<Path> files = new ArrayList<>();

    @Option(
            names = "--transitions",
            defaultValue = "100",
            paramLabel = "N",
            description = "Transitions per held-out set (default: ${DEFAULT-VALUE}).")
    private int transitions;

    @Option(
            names = "--per-episode",
            defaultValue = "" + HeldOutSet.DEFAULT_PER_EPISODE,
            paramLabel = "N",
            description =
                    "Most transitions drawn from one held-out episode, at seeded steps spread over"
                            + " it, so a set spans at least --transitions / N episodes (default:"
                            + " ${DEFAULT-VALUE}).")
    private int perEpisode;

    @Option(
            names = "--samples",
            defaultValue = "4",
            paramLabel = "K",
            description = "Samples per transition (default: ${DEFAULT-VALUE}).")
    private int samples;

    @Option(
            names = "--bootstrap",
            defaultValue = "1000",
            paramLabel = "B",
            description = "Bootstrap resamples per interval (default: ${DEFAULT-VALUE}).")
    private int bootstrap;

    @Option(
            names = "--seed",
            defaultValue = "7",
            description =
                    "Seed of held-out episodes, sampling and bootstrap (default: ${DEFAULT-VALUE},"
                            + " the demo's).")
    private long seed;

    @Option(
            names = "--epsilon",
            defaultValue = "0.3",
            description =
                    "Random-action probability of the held-out episodes' agent (default:"
                            + " ${DEFAULT-VALUE}, the demo's).")
    private double epsilon;

    @Option(
            names = "--drift-texts",
            defaultValue = "64",
            paramLabel = "N",
            description =
                    "Held-out transitions per environment (ALFWorld valid_unseen, tau2 test) whose"
                            + " text measures KL and perplexity; 0 skips both (default:"
                            + " ${DEFAULT-VALUE}).")
    private int driftTexts;

    @Option(
            names = "--reward-spec",
            paramLabel = "SPEC",
            description =
                    "Score with these specs ([env/]KIND=method[:threshold],... over the paper's"
                            + " defaults) instead of those the run's rewarded groups record.")
    private String rewardSpec;

    @Option(
            names = "--temperature",
            defaultValue = "1.0",
            description =
                    "Sampling temperature (default: ${DEFAULT-VALUE}, the prediction stage's).")
    private float temperature;

    @Option(
            names = "--top-p",
            defaultValue = "1.0",
            description = "Nucleus mass (default: ${DEFAULT-VALUE}, the prediction stage's).")
    private float topP;

    @Option(
            names = "--max-new-tokens",
            defaultValue = "64",
            paramLabel = "N",
            description = "Longest completion (default: ${DEFAULT-VALUE}, the prediction stage's).")
    private int maxNewTokens;

    @Option(
            names = "--greedy",
            description =
                    "Also sample each transition once at temperature 0, after the other samples,"
                            + " and report the greedy pass and strict pass rates.")
    private boolean greedy;

    @Option(
            names = "--agent",
            description =
                    "Also play the world-model-guided agent: at each step it draws"
                            + " --agent-candidates actions from the epsilon-expert (some"
                            + " inadmissible; one draw at a random position never is), asks each"
                            + " model for every candidate's next observation and takes the first"
                            + " not predicted to do nothing (Nothing happens. / Error:); reported"
                            + " with the avoidance's precision and recall, against the same agent"
                            + " without a world model (which takes the first candidate) and against"
                            + " random avoidance at the model's avoidance rate on the same"
                            + " episodes.")
    private boolean agent;

    @Option(
            names = "--agent-split",
            split = ",",
            defaultValue = "alfworld/valid_seen,alfworld/valid_unseen",
            paramLabel = "SET",
            description = "Splits the agent plays (default: ${DEFAULT-VALUE}).")
    private List<String> agentSplits;

    @Option(
            names = "--agent-episodes",
            defaultValue = "20",
            paramLabel = "N",
            description = "Agent episodes per split (default: ${DEFAULT-VALUE}).")
    private int agentEpisodes;

    @Option(
            names = "--agent-candidates",
            defaultValue = "3",
            paramLabel = "M",
            description = "Candidate actions per step (default: ${DEFAULT-VALUE}).")
    private int agentCandidates;

    @Option(
            names = "--agent-epsilon",
            defaultValue = "0.2",
            description =
                    "Probability that a candidate is a random admissible action (default:"
                            + " ${DEFAULT-VALUE}).")
    private double agentEpsilon;

    @Option(
            names = "--agent-invalid-rate",
            defaultValue = "0.3",
            description =
                    "Probability that a candidate (other than the one always admissible) is"
                            + " inadmissible (default: ${DEFAULT-VALUE}).")
    private double agentInvalidRate;

    @Option(
            names = "--agent-samples",
            defaultValue = "1",
            paramLabel = "K",
            description =
                    "Predictions per candidate; avoided when at least half do nothing (default:"
                            + " ${DEFAULT-VALUE}).")
    private int agentSamples;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description =
                    "Also write report.html (charts with intervals), report.md (model x split"
                            + " tables), figure-*.csv (each chart's figures), eval.csv,"
                            + " transitions.csv (each model's figures per transition, to pair"
                            + " models by transition) and eval.json to DIR.")
    private Path out;

    @Mixin private ClusterOptions cluster;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (runs.isEmpty() && modelDirs.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Name the models: --run NAME and/or --model-dir DIR.");
        }
        if (transitions < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--transitions must be at least 1");
        }
        if (perEpisode < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--per-episode must be at least 1");
        }
        final EvalSettings settings =
                new EvalSettings(samples, seed, bootstrap, temperature, topP, maxNewTokens, greedy);
        final PrintWriter stdout = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final long begun = System.nanoTime();
        final LiveView view = LiveView.open(err, LiveView.interactive());
        // Lines above the panel (or on stderr); each model's transitions as a bar.
        final Evaluation.Progress progress =
                new Evaluation.Progress() {
                    @Override
                    public void line(final String text) {
                        view.say(text);
                    }

                    @Override
                    public void scored(
                            final String what, final int done, final int total, final String line) {
                        view.show(
                                LiveFacts.bars(
                                        "rwml eval",
                                        Duration.ofNanos(System.nanoTime() - begun),
                                        List.of(
                                                new LiveFacts.Bar(
                                                        "transitions of " + what, done, total))));
                    }
                };
        final Connection connection = runs.isEmpty() ? null : cluster.connection();
        try (ModelCatalog catalog = new ModelCatalog(connection);
                view) {
            for (final String run : runs) {
                catalog.addRun(run, versions);
            }
            for (final Path dir : modelDirs) {
                catalog.addDirectory(dir);
            }
            final List<HeldOutSet> sets = sets(progress);
            final Map<String, List<Transition>> texts = new LinkedHashMap<>();
            if (driftTexts > 0) {
                texts.put(
                        "alfworld",
                        HeldOutSet.generate(
                                        "alfworld/valid_unseen",
                                        driftTexts,
                                        seed,
                                        epsilon,
                                        perEpisode)
                                .transitions());
                texts.put(
                        "tau2",
                        HeldOutSet.generate("tau2/test", driftTexts, seed, epsilon, perEpisode)
                                .transitions());
            }
            final Map<String, RewardSpecTable> specs = new LinkedHashMap<>();
            progress.line("eval: loading the embedding model");
            final SimilarityScorer scorer =
                    new SimilarityScorer(EmbeddingSettings.defaults().create(System.getenv()));
            final long started = System.nanoTime();
            final EvalReport report =
                    new Evaluation(
                                    sets,
                                    texts,
                                    run -> specs.computeIfAbsent(run, r -> specs(connection, r)),
                                    scorer,
                                    settings,
                                    progress,
                                    agentEvaluation(settings))
                            .run(catalog);
            view.close();
            stdout.printf(
                    Locale.ROOT,
                    "rwml eval: %d models on %d held-out sets in %.0f s%n",
                    report.models().size(),
                    sets.size(),
                    (System.nanoTime() - started) / 1e9);
            ReportWriter.printTables(report, stdout);
            if (out != null) {
                ReportWriter.writeFiles(report, out);
                stdout.println(
                        "wrote "
                                + out.resolve("report.html")
                                + " (charts), report.md (tables), figure-*.csv, eval.csv,"
                                + " transitions.csv and eval.json");
            }
            stdout.flush();
            return 0;
        }
    }

    private AgentEvaluation agentEvaluation(final EvalSettings settings) {
        if (!agent) {
            return null;
        }
        try {
            return new AgentEvaluation(
                    agentSplits.stream().map(String::strip).toList(),
                    new GuidedAgent.Settings(
                            agentEpisodes, agentCandidates, agentEpsilon, agentInvalidRate),
                    seed,
                    settings.bootstrap(),
                    agentSamples);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private List<HeldOutSet> sets(final Evaluation.Progress progress) {
        final List<String> names = new ArrayList<>(splits);
        if (names.isEmpty() && files.isEmpty()) {
            names.addAll(HeldOutSet.SPLITS.subList(0, 3));
        }
        final List<HeldOutSet> sets = new ArrayList<>();
        for (final String name : names) {
            progress.line("eval: generating " + transitions + " held-out transitions of " + name);
            sets.add(HeldOutSet.generate(name.strip(), transitions, seed, epsilon, perEpisode));
        }
        for (final Path file : files) {
            sets.add(HeldOutSet.fromFile(file, transitions));
        }
        return sets;
    }

    /** The explicit --reward-spec, else what the run's rewards record, else the paper's. */
    private RewardSpecTable specs(final Connection connection, final String run) {
        if (rewardSpec != null) {
            return RewardSpecTable.parse(rewardSpec);
        }
        if (connection != null) {
            final Optional<RewardSpecTable> recorded = TrainingSpecs.read(connection, run);
            if (recorded.isPresent()) {
                return recorded.get();
            }
        }
        return RewardSpecTable.paperDefaults();
    }
}
