package dev.rwml.ops.cli;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.imports.ImportConfig;
import dev.rwml.env.imports.ImportResult;
import dev.rwml.env.imports.SkippedLine;
import dev.rwml.env.imports.TrajectoryImporter;
import dev.rwml.env.produce.ActingModel;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProducerResult;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.watch.LiveFacts;
import dev.rwml.prediction.PredictionApp;
import dev.rwml.prediction.RemoteSamplerSettings;
import dev.rwml.runtime.lifecycle.StopSignals;
import dev.rwml.worldmodel.serve.SamplingSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rwml env}: runs environment agents that publish transitions ({@code run}) and imports
 * recorded trajectories ({@code import}) into {@code rwml.transitions}.
 */
@Command(
        name = "env",
        footer = {
            "",
            "Examples:",
            "  ./rwml env run --env alfworld --agents 2 --episodes 200 --seed 1",
            "  ./rwml env import recorded.jsonl"
        },
        mixinStandardHelpOptions = true,
        description = "Produce transitions from environments, or import recorded ones.",
        subcommands = {EnvCommand.Run.class, EnvCommand.Import.class})
final class EnvCommand implements Runnable {

    @Spec private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Name run or import.");
    }

    /** The cluster, progress and history options every env subcommand shares. */
    static final class CommonOptions {
        @CommandLine.Mixin ClusterOptions cluster = new ClusterOptions();

        @Option(
                names = "--history",
                defaultValue = "" + EpisodeRunner.DEFAULT_HISTORY_TURNS,
                description =
                        "Earlier turns H each transition carries (default: ${DEFAULT-VALUE}).")
        int history;

        @Option(
                names = "--progress-interval",
                defaultValue = "PT5S",
                description =
                        "How often progress is printed when stdout is not a terminal, ISO-8601"
                                + " (default: ${DEFAULT-VALUE}).")
        Duration progressInterval;

        KafkaSettings kafka() {
            return KafkaSettings.of(cluster.connection());
        }

        /** Twice a second on a terminal, where the line is rewritten in place. */
        Duration interval() {
            return interactive() ? Duration.ofMillis(500) : progressInterval;
        }

        static boolean interactive() {
            return System.console() != null;
        }
    }

    /** Parses {@code now} or an ISO-8601 instant. */
    static Instant baseTime(final String text) {
        return "now".equalsIgnoreCase(text.trim()) ? Instant.now() : Instant.parse(text.trim());
    }

    /**
     * Runs {@code body}; SIGTERM or Ctrl-C calls {@code stop}, and the body then finishes (flushes
     * and prints its summary) and the command exits 0.
     */
    static <T> T withGracefulStop(final Runnable stop, final Callable<T> body) throws Exception {
        StopSignals.install().thenRun(stop);
        return body.call();
    }

    /** {@code rwml env run}. */
    @Command(
            name = "run",
            footer = {
                "",
                "Examples:",
                "  ./rwml env run --env alfworld --agents 2 --episodes 200 --seed 1",
                "  ./rwml env run --env alfworld --agents 4 --episodes 500 --seed 2 --policy epsilon",
                "  ./rwml env run --env alfworld --episodes 20 --policy model --run demo"
            },
            mixinStandardHelpOptions = true,
            description = {
                "Run N agents over M episodes and publish every transition to rwml.transitions.",
                "The same options (seed, agents, base time) give the same records. Ctrl-C stops"
                        + " taking episodes, sends the current ones whole, flushes and reports.",
                "With --policy model the run's newest model version acts (swapped in as the"
                        + " trainer publishes); each transition names the version that chose it,"
                        + " and each episode is published whole, in one transaction, with its"
                        + " rollout (prompt and answer token ids, behaviour log-probs, return) on"
                        + " rwml.<run>.rollouts. Killed, the same command again publishes only the"
                        + " episodes still missing."
            })
    static final class Run implements Callable<Integer> {
        @Spec private CommandSpec spec;

        @CommandLine.Mixin private CommonOptions common = new CommonOptions();

        @Option(
                names = "--env",
                required = true,
                description = "alfworld, retail or airline.",
                converter = EnvConverter.class)
        private EnvKind env;

        @Option(
                names = "--agents",
                defaultValue = "" + ProducerConfig.DEFAULT_AGENTS,
                description = "Concurrent agents N.")
        private int agents;

        @Option(
                names = "--episodes",
                defaultValue = "" + ProducerConfig.DEFAULT_EPISODES,
                description = "Episodes M in total.")
        private int episodes;

        @Option(
                names = "--split",
                defaultValue = "train",
                description =
                        "train, valid_seen, valid_unseen (alfworld); train, test (retail,"
                                + " airline). Default: ${DEFAULT-VALUE}.")
        private String split;

        @Option(names = "--seed", defaultValue = "0", description = "The run's seed.")
        private long seed;

        @Option(
                names = "--policy",
                defaultValue = "expert",
                description =
                        "expert, random, epsilon, or model: the newest version of --run acts"
                                + " (default: ${DEFAULT-VALUE}).",
                converter = PolicyConverter.class)
        private Policy policy;

        @Option(
                names = "--run",
                paramLabel = "NAME",
                description = "The run whose model acts (--policy model).")
        private String run;

        @Option(
                names = "--temperature",
                defaultValue = "1.0",
                description =
                        "Sampling temperature of --policy model; 0 acts greedily (default:"
                                + " ${DEFAULT-VALUE}).")
        private float temperature;

        @Option(
                names = "--max-new-tokens",
                defaultValue = "64",
                description =
                        "Longest answer of --policy model, reasoning and action (default:"
                                + " ${DEFAULT-VALUE}).")
        private int maxNewTokens;

        @Option(
                names = "--prompt-max-tokens",
                defaultValue = "512",
                description =
                        "Longest acting prompt of --policy model; the oldest turns go first"
                                + " (default: ${DEFAULT-VALUE}).")
        private int promptMaxTokens;

        @Option(
                names = "--sampler-url",
                paramLabel = "URL",
                description =
                        "Sample --policy model's actions through this inference server (vLLM's"
                                + " OpenAI-compatible API, or rwml serve), e.g."
                                + " http://gpu-box:8000; each version is still loaded here for its"
                                + " tokenizer and prompts.")
        private String samplerUrl;

        @Option(
                names = "--sampler-model",
                paramLabel = "NAME",
                description =
                        "The name the server serves the run's base as (vLLM's"
                                + " --served-model-name); default: the run's name.")
        private String samplerModel;

        @Option(
                names = "--sampler-api-key-env",
                paramLabel = "VAR",
                defaultValue = "",
                description = "The environment variable holding the server's API key.")
        private String samplerApiKeyEnv;

        @Option(
                names = "--sampler-adapter-dir",
                paramLabel = "DIR",
                description =
                        "A directory the server reads, where each LoRA version's PEFT adapter is"
                                + " written for it to load.")
        private Path samplerAdapterDir;

        @Option(
                names = "--episodes-per-game",
                paramLabel = "G",
                description =
                        "With --policy model: play each game G times in a row, a group whose"
                                + " returns give each episode its advantage in its rollout, as"
                                + " GRPO over episodes needs (default: 1, advantage 0);"
                                + " --episodes must be a multiple of G.")
        private Integer episodesPerGame;

        @Option(
                names = "--wait-for-model",
                defaultValue = "60",
                paramLabel = "SECONDS",
                description =
                        "How long --policy model waits for the run's first version (default:"
                                + " ${DEFAULT-VALUE}).")
        private int waitForModel;

        @Option(
                names = "--epsilon",
                defaultValue = "" + ProducerConfig.DEFAULT_EPSILON,
                description = "Random-action probability of --policy epsilon.")
        private double epsilon;

        @Option(
                names = "--invalid-rate",
                defaultValue = "" + PolicyKind.DEFAULT_INVALID_RATE,
                description =
                        "Inadmissible-action probability of --policy epsilon: a command that does"
                                + " nothing (ALFWorld: Nothing happens.; tau2: an Error: result),"
                                + " as the paper's trajectories contain (default: ${DEFAULT-VALUE}).")
        private double invalidRate;

        @Option(
                names = "--rate",
                paramLabel = "R",
                description = "At most R transitions per second over all agents.")
        private Double rate;

        @Option(
                names = "--grammar",
                defaultValue = "current",
                description = "ALFWorld command grammar: current or older.",
                converter = GrammarConverter.class)
        private Grammar grammar;

        @Option(
                names = "--base-time",
                defaultValue = ProducerConfig.DEFAULT_BASE_TIME_TEXT,
                description =
                        "Event time of episode 0's first step (ISO-8601 or now); episode n starts"
                                + " n minutes later, steps 1 s apart (default: ${DEFAULT-VALUE}).")
        private String baseTime;

        /**
         * Refuses model options without the model policy, the model policy without a run, and
         * episodes that do not fill whole games.
         */
        private void checkPolicyOptions() {
            if (policy == Policy.MODEL && run == null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--policy model needs --run NAME: the run whose model acts");
            }
            if (policy != Policy.MODEL && samplerUrl != null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--sampler-url samples the model's actions: add --policy model --run NAME");
            }
            if (policy != Policy.MODEL && episodesPerGame != null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--episodes-per-game groups the model's episodes: add --policy model --run"
                                + " NAME");
            }
            if (episodesPerGame != null
                    && (episodesPerGame < 1 || episodes % episodesPerGame != 0)) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--episodes ("
                                + episodes
                                + ") must be a multiple of --episodes-per-game ("
                                + episodesPerGame
                                + "), which must be at least 1");
            }
            if (policy != Policy.MODEL && run != null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--run names the run whose model acts: add --policy model");
            }
        }

        private ActingModel actingModel() {
            final Optional<RemoteSamplerSettings> remote =
                    samplerUrl == null
                            ? Optional.empty()
                            : Optional.of(
                                    RemoteSamplerSettings.of(
                                            samplerUrl,
                                            samplerApiKeyEnv,
                                            samplerModel == null ? run : samplerModel,
                                            Optional.ofNullable(samplerAdapterDir),
                                            RemoteSamplerSettings.DEFAULT_TIMEOUT));
            return new ActingModel(
                    run,
                    PredictionApp.loader(run, remote),
                    new SamplingSettings(1, temperature, 1.0f, maxNewTokens),
                    promptMaxTokens,
                    Duration.ofSeconds(waitForModel),
                    episodesPerGame == null ? 1 : episodesPerGame);
        }

        @Override
        public Integer call() throws Exception {
            checkPolicyOptions();
            final ProducerConfig.Builder builder =
                    ProducerConfig.builder(env, common.kafka())
                            .split(split)
                            .grammar(grammar)
                            .agents(agents)
                            .episodes(episodes)
                            .seed(seed)
                            .policy(policy.scripted().orElse(PolicyKind.EXPERT))
                            .epsilon(epsilon)
                            .invalidRate(invalidRate)
                            .historyTurns(common.history)
                            .baseTime(baseTime(baseTime))
                            .progressInterval(common.interval());
            if (rate != null) {
                builder.rate(rate);
            }
            if (policy == Policy.MODEL) {
                builder.model(actingModel());
            }
            final ProducerConfig config = builder.build();
            final PrintWriter out = spec.commandLine().getOut();
            final ProducerResult result;
            try (LiveView view =
                    LiveView.open(out, CommonOptions.interactive(), common.progressInterval)) {
                final TransitionProducer producer =
                        new TransitionProducer(
                                config,
                                new SimpleMeterRegistry(),
                                new EpisodeProgress(
                                        view, "run " + env.id() + "/" + split, episodes));
                result = withGracefulStop(producer::stop, producer::run);
            }
            out.println("rwml env run: " + result.summary());
            out.flush();
            return result.sendErrors() == 0 ? 0 : 1;
        }
    }

    /**
     * Shows a producer's progress on a {@link LiveView}: its transitions and their rate, and its
     * episodes as a bar when their number is known ({@code env run}), else as a count ({@code env
     * import}).
     */
    private record EpisodeProgress(LiveView view, String label, int episodes)
            implements ProgressListener {

        @Override
        public void update(final dev.rwml.env.produce.Progress p) {
            view.show(
                    LiveFacts.bars(
                            String.format(
                                    Locale.ROOT,
                                    "rwml env %s: %s%d transitions, %.1f/s%s",
                                    label,
                                    episodes == 0 ? p.episodes() + " episodes, " : "",
                                    p.transitions(),
                                    p.transitionsPerSecond(),
                                    p.sendErrors() == 0
                                            ? ""
                                            : ", " + p.sendErrors() + " send errors"),
                            p.elapsed(),
                            episodes == 0
                                    ? List.of()
                                    : List.of(
                                            new LiveFacts.Bar(
                                                    "episodes", p.episodes(), episodes))));
        }
    }

    /** {@code rwml env import}. */
    @Command(
            name = "import",
            footer = {
                "",
                "Examples:",
                "  ./rwml env import recorded.jsonl",
                "  ./rwml env import recorded.jsonl --split valid_seen"
            },
            mixinStandardHelpOptions = true,
            description = {
                "Import recorded trajectories (JSONL, one episode per line) into rwml.transitions.",
                "Line format: {\"env\", \"split\", \"episode_id\", \"task\","
                        + " \"initial_observation\", \"steps\": [{\"action\", \"observation\","
                        + " \"reward\", \"done\", \"valid\", \"kind\"}], \"metadata\"}.",
                "Malformed lines are reported with their numbers and skipped."
            })
    static final class Import implements Callable<Integer> {
        @Spec private CommandSpec spec;

        @CommandLine.Mixin private CommonOptions common = new CommonOptions();

        @Parameters(index = "0", paramLabel = "FILE.jsonl", description = "The trajectories.")
        private Path file;

        @Option(names = "--env-name", description = "Use this env for every line.")
        private String envName;

        @Option(names = "--split", description = "Use this split for every line.")
        private String split;

        @Option(
                names = "--base-time",
                defaultValue = "now",
                description =
                        "Event time of the first episode's first step (ISO-8601 or now; default:"
                                + " ${DEFAULT-VALUE}).")
        private String baseTime;

        @Override
        public Integer call() {
            final ImportConfig config =
                    new ImportConfig(
                            file,
                            Optional.ofNullable(envName),
                            Optional.ofNullable(split),
                            common.history,
                            baseTime(baseTime),
                            common.interval(),
                            common.kafka());
            final PrintWriter out = spec.commandLine().getOut();
            final ImportResult result;
            try (LiveView view =
                    LiveView.open(out, CommonOptions.interactive(), common.progressInterval)) {
                result =
                        new TrajectoryImporter(
                                        config,
                                        new SimpleMeterRegistry(),
                                        new EpisodeProgress(
                                                view, "import " + file.getFileName(), 0))
                                .run();
            }
            for (final SkippedLine skipped : result.skipped()) {
                spec.commandLine().getErr().println("skipped " + skipped);
            }
            spec.commandLine().getErr().flush();
            out.println("rwml env import: " + result.summary());
            out.flush();
            return result.sendErrors() == 0 ? 0 : 1;
        }
    }

    /** The enum constant named {@code value} in any case, or a message listing the valid names. */
    private static <E extends Enum<E>> E constant(
            final Class<E> type, final String value, final String what, final String validNames) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(
                    "unknown " + what + " '" + value + "'; use " + validNames);
        }
    }

    /** Accepts the environment names in any case. */
    static final class EnvConverter implements CommandLine.ITypeConverter<EnvKind> {
        @Override
        public EnvKind convert(final String value) {
            return EnvKind.of(value);
        }
    }

    /** Accepts the grammar names in any case. */
    static final class GrammarConverter implements CommandLine.ITypeConverter<Grammar> {
        @Override
        public Grammar convert(final String value) {
            return constant(Grammar.class, value, "grammar", "current or older");
        }
    }

    /** Who acts in {@code env run}: a scripted policy, or the run's model. */
    enum Policy {
        EXPERT(PolicyKind.EXPERT),
        RANDOM(PolicyKind.RANDOM),
        EPSILON(PolicyKind.EPSILON),
        MODEL(null);

        private final PolicyKind scripted;

        Policy(final PolicyKind scripted) {
            this.scripted = scripted;
        }

        /** The scripted policy, empty for the model. */
        Optional<PolicyKind> scripted() {
            return Optional.ofNullable(scripted);
        }
    }

    /** Accepts the policy names in any case. */
    static final class PolicyConverter implements CommandLine.ITypeConverter<Policy> {
        @Override
        public Policy convert(final String value) {
            return constant(Policy.class, value, "policy", "expert, random, epsilon or model");
        }
    }
}
