package dev.rwml.ops.cli;

import dev.rwml.ops.cli.eval.ReportWriter;
import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.bench.Arm;
import dev.rwml.pipeline.bench.BenchRun;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.pipeline.replay.ReplayRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml bench}: base, WM-SFT, RWML with the paper's offline filter and RWML without it,
 * trained on the same slices and compared transition by transition.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "The paper's comparison at small scale on the embedded cluster under --dir: a base"
                    + " world model SFT'd on ALFWorld in both command grammars; a filter model"
                    + " (the base SFT'd on a validation slice); per seed a new slice of episodes"
                    + " and the arms trained from copies of the base on it: wm-sft (SFT on the"
                    + " observed next states), rwml (GRPO on what the offline filter kept: K"
                    + " tries per transition, easy ones kept with probability 0.1), rwml-nofilter"
                    + " and, when asked, rwml-online (the policy's own samples judge easiness)."
                    + " Then every model is evaluated on valid_unseen (strict pass, greedy pass,"
                    + " the training threshold, exact match), on the older grammar it never"
                    + " trained (forgetting), and as the guide of an agent; arms are compared at"
                    + " their last version and at RWML's number of optimizer steps, by paired"
                    + " differences with 95%% intervals that resample episodes. Writes"
                    + " <dir>/report/ (bench.md, report.html, report.md, transitions.csv).",
            "Resumable: rerun with the same options and --dir; finished steps are skipped and an"
                    + " interrupted arm is trained again into a fresh run.",
            "Example: rwml bench --seeds 2 --arms wm-sft,rwml,rwml-nofilter"
                    + " --arm-set rwml:trainer.learning.rate=1e-3"
        })
final class BenchCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--dir",
            defaultValue = ".rwml/bench",
            description = "Cluster data, state, markers and report (default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(
            names = "--seeds",
            description =
                    "Seeds, each with its own slice, sampling and subsampling draws (default: 3,"
                            + " 1 with --quick).")
    private Integer seeds;

    @Option(
            names = "--episodes",
            description = "Episodes in each seed's slice (default: 30, 3 with --quick).")
    private Integer episodes;

    @Option(
            names = "--epochs",
            description = "Replays of each slice per arm (default: 4, 1 with --quick).")
    private Integer epochs;

    @Option(
            names = "--round-transitions",
            paramLabel = "N",
            description =
                    "About how many transitions each replay round holds; a round is trained into"
                            + " one version before the next is generated (default: "
                            + ReplayRun.DEFAULT_ROUND_TRANSITIONS
                            + ").")
    private Integer roundTransitions;

    @Option(
            names = "--arms",
            split = ",",
            paramLabel = "ARM",
            description =
                    "Arms to train: wm-sft, rwml, rwml-nofilter, rwml-online (default: all"
                            + " four).")
    private List<String> arms;

    @Option(
            names = "--arm-set",
            paramLabel = "ARM:STAGE.KEY=V",
            description =
                    "A stage setting for one arm over the bench's, e.g."
                            + " rwml:trainer.learning.rate=1e-3 (stages: prediction, reward,"
                            + " trainer, filter); repeatable.")
    private List<String> armSets = new ArrayList<>();

    @Option(
            names = "--filter",
            defaultValue = "sft",
            description =
                    "The filter model: sft (a copy of the base SFT'd on the validation slice, as"
                            + " the paper) or base (default: ${DEFAULT-VALUE}).")
    private String filter;

    @Option(
            names = "--filter-tries",
            description =
                    "K, the filter model's tries per transition (default: 10, 2 with --quick).")
    private Integer filterTries;

    @Option(
            names = "--filter-episodes",
            description = "Episodes of the validation slice (default: 10, 2 with --quick).")
    private Integer filterEpisodes;

    @Option(
            names = "--pretrain-episodes",
            description =
                    "The base's pretraining episodes in the current grammar (default: 100, the"
                            + " demo's with --quick).")
    private Integer pretrainEpisodes;

    @Option(
            names = "--older-grammar-episodes",
            description =
                    "The base's pretraining episodes in the older grammar, where forgetting is"
                            + " measured (default: 40, 4 with --quick).")
    private Integer olderGrammarEpisodes;

    @Option(
            names = "--base-steps",
            description = "SFT steps of the base (default: 600, the demo's with --quick).")
    private Integer baseSteps;

    @Option(
            names = "--groups-per-step",
            description = "Groups per optimizer step (default: 2, the demo's with --quick).")
    private Integer groupsPerStep;

    @Option(
            names = "--learning-rate",
            description = "The arms' learning rate (default: the demo's, 3e-4 for small).")
    private Double learningRate;

    @Option(
            names = "--warmup-fraction",
            defaultValue = "0.02",
            description =
                    "Learning-rate warmup as a fraction of the most optimizer steps a slice"
                            + " allows (transitions x epochs / groups per step) (default:"
                            + " ${DEFAULT-VALUE}).")
    private double warmupFraction;

    @Option(
            names = "--max-new-tokens",
            description =
                    "The token cap of every sample: training, the filter and evaluation (default:"
                            + " 64, the demo's with --quick).")
    private Integer maxNewTokens;

    @Option(
            names = "--eval-transitions",
            description = "Held-out valid_unseen transitions (default: 400, 12 with --quick).")
    private Integer evalTransitions;

    @Option(
            names = "--per-episode",
            description =
                    "The most held-out transitions from one episode (default: 10, 4 with"
                            + " --quick).")
    private Integer perEpisode;

    @Option(
            names = "--eval-samples",
            description = "Samples per held-out transition (default: 4, 2 with --quick).")
    private Integer evalSamples;

    @Option(
            names = "--temperature",
            defaultValue = "1.0",
            description =
                    "Sampling temperature of the held-out samples; a greedy pass is added"
                            + " (default: ${DEFAULT-VALUE}).")
    private double temperature;

    @Option(
            names = "--agent-episodes",
            description = "Guided-agent episodes per model (default: 60, 2 with --quick).")
    private Integer agentEpisodes;

    @Option(
            names = "--size",
            defaultValue = "small",
            description = "World-model size: small or tiny (default: ${DEFAULT-VALUE}).")
    private String size;

    @Option(
            names = "--quick",
            description =
                    "A smoke run: tiny model, 1 seed, a few episodes, small held-out sets (used by"
                            + " the integration test).")
    private boolean quick;

    @Override
    public Integer call() throws Exception {
        final DemoSettings demo = DemoSettings.of(size, quick);
        final List<Arm> trained = new ArrayList<>();
        if (arms == null) {
            trained.addAll(List.of(Arm.values()));
        } else {
            arms.forEach(a -> trained.add(Arm.of(a.trim())));
        }
        if (!filter.equals("sft") && !filter.equals("base")) {
            throw new IllegalArgumentException(
                    "--filter must be sft or base, got '" + filter + "'");
        }
        final BenchRun.Settings settings =
                new BenchRun.Settings(
                        dir,
                        demo,
                        new BenchRun.Data(
                                or(seeds, quick ? 1 : 3),
                                or(pretrainEpisodes, quick ? demo.pretrainEpisodes() : 100),
                                or(olderGrammarEpisodes, quick ? 4 : 40),
                                or(filterEpisodes, quick ? 2 : 10),
                                or(episodes, quick ? 3 : 30)),
                        new BenchRun.Training(
                                trained,
                                or(baseSteps, quick ? demo.initSteps() : 600),
                                or(epochs, quick ? 1 : 4),
                                or(roundTransitions, ReplayRun.DEFAULT_ROUND_TRANSITIONS),
                                or(groupsPerStep, quick ? demo.groupsPerStep() : 2),
                                learningRate != null ? learningRate : demo.learningRate(),
                                warmupFraction,
                                or(filterTries, quick ? 2 : 10),
                                filter.equals("base"),
                                or(maxNewTokens, quick ? demo.maxNewTokens() : 64),
                                Arm.parseSettings(armSets)),
                        new BenchRun.Eval(
                                or(evalTransitions, quick ? 12 : 400),
                                or(perEpisode, quick ? 4 : 10),
                                or(evalSamples, quick ? 2 : 4),
                                temperature,
                                quick ? 200 : 1000,
                                or(agentEpisodes, quick ? 2 : 60)));
        new BenchRun(
                        settings,
                        new Progress(spec.commandLine().getOut(), LiveView.interactive()),
                        ReportWriter::writeFiles)
                .run();
        return 0;
    }

    private static int or(final Integer given, final int otherwise) {
        return given != null ? given : otherwise;
    }
}
