package dev.rwml.ops.cli;

import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.channel.init.HfModelInit;
import dev.rwml.channel.init.PretrainingSlice;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.watch.SftBar;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.train.StepMetrics;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml model init}: builds a run's base world model (version 0) from transitions; {@code
 * logits} is {@link ModelLogitsCommand}.
 */
@Command(
        name = "model",
        footer = {
            "",
            "Examples:",
            "  ./rwml model init --run r1 --size small --steps 300",
            "  ./rwml model logits --hf /models/Qwen2.5-0.5B-Instruct --ids 1,2,3"
        },
        mixinStandardHelpOptions = true,
        description = "Create a run's base world model.",
        subcommands = {
            ModelCommand.Init.class,
            ModelLogitsCommand.class,
            CommandLine.HelpCommand.class
        })
final class ModelCommand implements Runnable {

    @Spec private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Name a subcommand: init.");
    }

    /** The thin shell over {@link BaseModelInit}: options in, progress lines out. */
    @Command(
            name = "init",
            footer = {
                "",
                "Examples:",
                "  ./rwml model init --run r1 --size small --steps 300",
                "  ./rwml model init --run mine --from-hf /models/Qwen2.5-0.5B-Instruct"
            },
            mixinStandardHelpOptions = true,
            description = {
                "Read a pretraining slice of rwml.transitions (earliest offsets up to the end seen"
                        + " at start), train the tokenizer and a small base world model on it by"
                        + " SFT, and publish it as version 0 of the run.",
                "The small base model stands in for the paper's pretrained LLM. Start the run's"
                        + " prediction stage from the offsets after the slice (printed at the"
                        + " end), so RWML never trains on the pretraining data.",
                "With --from-hf DIR, publish a Hugging Face checkpoint (Qwen2, Qwen3, Llama:"
                        + " config.json, safetensors, tokenizer.json) as version 0 instead, as it"
                        + " is; with --steps N it is first taught the answer format by N SFT steps"
                        + " on the slice (every weight, or with --lora an adapter merged in)."
            })
    static final class Init implements Callable<Integer> {

        @Spec private CommandSpec spec;

        @Option(names = "--run", required = true, paramLabel = "NAME", description = "The run.")
        private String run;

        @Option(
                names = "--size",
                defaultValue = "small",
                description = "Model preset: tiny, small or medium (default: ${DEFAULT-VALUE}).")
        private String size;

        @Option(
                names = "--steps",
                paramLabel = "N",
                description =
                        "SFT steps (default: 300 for the small model; 0 with --from-hf, which then"
                                + " publishes the checkpoint as it is).")
        private Integer steps;

        @Option(
                names = "--learning-rate",
                paramLabel = "LR",
                description =
                        "With --from-hf and --steps: AdamW's learning rate (default: 2e-5, 2e-4"
                                + " with --lora).")
        private Double learningRate;

        @Option(
                names = "--prompt-max-tokens",
                defaultValue = "512",
                paramLabel = "N",
                description =
                        "With --from-hf and --steps: the prompt budget, as the prediction stage's"
                                + " prompt.max.tokens (default: ${DEFAULT-VALUE}).")
        private int promptMaxTokens;

        @Option(
                names = "--max-transitions",
                defaultValue = "5000",
                paramLabel = "N",
                description = "At most N transitions in the slice (default: ${DEFAULT-VALUE}).")
        private int maxTransitions;

        @Option(
                names = "--env",
                arity = "1..*",
                paramLabel = "NAME",
                description = "Pretrain only on these environments (default: all).")
        private List<String> envs = List.of();

        @Option(
                names = "--seed",
                defaultValue = "1",
                description = "Seed of initialisation and shuffling (default: ${DEFAULT-VALUE}).")
        private long seed;

        @Option(
                names = "--from-hf",
                paramLabel = "DIR",
                description =
                        "Publish this Hugging Face checkpoint directory as version 0 (the"
                                + " size option does not apply; the slice options only with --steps).")
        private Path fromHf;

        @Option(
                names = "--lora",
                arity = "0..1",
                fallbackValue = "",
                paramLabel = "SPEC",
                description =
                        "With --from-hf: train LoRA adapters on the frozen checkpoint instead of"
                                + " every weight; each version is then its adapter only. SPEC is"
                                + " r=16,alpha=32,dropout=0,targets=q+k+v+o+gate+up+down (every"
                                + " key optional; these are the defaults, alpha 2r).")
        private String lora;

        @Option(
                names = "--acting",
                description =
                        "The small model also learns to act (the agent's policy): behaviour cloning"
                                + " on the slice's own actions beside every world-model example, so"
                                + " that rwml env run --policy model has a base policy to start"
                                + " from.")
        private boolean acting;

        @CommandLine.Mixin private ClusterOptions cluster;

        /** What to initialise; every client of init starts from the cluster's connection. */
        BaseModelInit.Config config() {
            final Connection connection = cluster.connection();
            final BaseModelInit.Config preset =
                    BaseModelInit.Config.of(
                            run,
                            connection,
                            size,
                            smallModelSteps(),
                            maxTransitions,
                            new LinkedHashSet<>(envs),
                            seed);
            return new BaseModelInit.Config(
                    run,
                    connection,
                    preset.settings().withActing(acting),
                    maxTransitions,
                    preset.envs(),
                    preset.timeout());
        }

        @Override
        public Integer call() {
            final PrintWriter out = spec.commandLine().getOut();
            if (fromHf != null && acting) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--acting teaches the small model to act; a Hugging Face checkpoint acts as"
                                + " it is, asked through its chat template: leave --acting out");
            }
            if (fromHf != null) {
                return fromHf(out);
            }
            if (lora != null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--lora adapts a pretrained checkpoint: use it with --from-hf DIR");
            }
            final BaseModelInit.Config config = config();
            out.printf(
                    Locale.ROOT,
                    "rwml model init: run %s, %s model%s, %d steps, up to %d transitions%n",
                    run,
                    size,
                    acting ? " acting and predicting" : "",
                    smallModelSteps(),
                    maxTransitions);
            out.flush();
            final BaseModelInit.Result result;
            try (Progress progress = new Progress(out)) {
                result = BaseModelInit.run(config, progress);
            }
            printNextOffsets(out, result.lineage());
            out.flush();
            return 0;
        }

        private int fromHf(final PrintWriter out) {
            final Connection connection = cluster.connection();
            out.printf(
                    Locale.ROOT,
                    "rwml model init: run %s from %s%s%n",
                    run,
                    fromHf,
                    lora == null ? "" : ", LoRA " + LoraConfig.parse(lora));
            out.flush();
            final ModelVersion sent;
            try (Progress progress = new Progress(out)) {
                sent =
                        HfModelInit.run(
                                new HfModelInit.Config(
                                        run,
                                        connection,
                                        fromHf,
                                        Optional.ofNullable(lora).map(LoraConfig::parse),
                                        sft(),
                                        Duration.ofSeconds(60)),
                                progress);
            }
            out.printf(
                    Locale.ROOT,
                    "published version 0 of run %s: %s, %s parameters, %d bytes (%s), sha256 %s%n",
                    sent.getRun(),
                    sent.getModelConfig().get("architecture"),
                    sent.getModelConfig().get("parameters"),
                    sent.getArtifact().getSizeBytes(),
                    sent.getArtifact().getFormat(),
                    sent.getArtifact().getSha256());
            if (sent.getLineage().isEmpty()) {
                out.println(
                        "start the prediction stage with its default start.from=after-base:"
                                + " version 0 was trained on none of rwml.transitions, so it reads"
                                + " from the beginning");
            } else {
                printNextOffsets(out, sent.getLineage());
            }
            out.flush();
            return 0;
        }

        private int smallModelSteps() {
            return steps == null ? 300 : steps;
        }

        /** The SFT of a Hugging Face checkpoint before it is published: none unless --steps. */
        private Optional<HfModelInit.Sft> sft() {
            if (steps == null || steps == 0) {
                return Optional.empty();
            }
            return Optional.of(
                    new HfModelInit.Sft(
                            steps,
                            learningRate != null ? learningRate : lora == null ? 2e-5 : 2e-4,
                            maxTransitions,
                            new LinkedHashSet<>(envs),
                            promptMaxTokens,
                            seed));
        }
    }

    /** Where the run's prediction stage starts: the first offsets after the slice. */
    private static void printNextOffsets(final PrintWriter out, final List<OffsetRange> lineage) {
        out.println("next offsets of rwml.transitions for the prediction stage:");
        for (final OffsetRange r : lineage) {
            out.printf(
                    Locale.ROOT,
                    "  partition %d: %d (slice [%d, %d))%n",
                    r.getPartition(),
                    r.getUntilOffset(),
                    r.getFromOffset(),
                    r.getUntilOffset());
        }
    }

    /**
     * Prints the slice, the SFT steps as a bar, and the published version; closing it leaves the
     * bar's last state on screen.
     */
    private static final class Progress implements BaseModelInit.Listener, AutoCloseable {
        private final PrintWriter out;
        private final LiveView view;
        private final SftBar bar;

        Progress(final PrintWriter out) {
            this.out = out;
            this.view = LiveView.open(out, LiveView.interactive());
            this.bar = new SftBar(view, "rwml model init");
        }

        @Override
        public void sliceRead(final PretrainingSlice slice) {
            out.printf(
                    Locale.ROOT,
                    "slice: %d transitions of %d records read (%d other envs, %d undecodable)%n",
                    slice.transitions().size(),
                    slice.scanned(),
                    slice.otherEnvs(),
                    slice.undecodable());
            out.flush();
        }

        @Override
        public void step(final StepMetrics m, final int totalSteps) {
            bar.step(m, totalSteps);
        }

        @Override
        public void close() {
            view.close();
        }

        @Override
        public void published(final ModelVersion manifest) {
            close();
            out.printf(
                    Locale.ROOT,
                    "published version 0 of run %s: %d bytes, sha256 %s, loss %.4f%n",
                    manifest.getRun(),
                    manifest.getArtifact().getSizeBytes(),
                    manifest.getArtifact().getSha256(),
                    manifest.getMetrics().getOrDefault("loss", Double.NaN));
            out.flush();
        }
    }
}
