package dev.rwml.ops.cli;

import dev.rwml.ops.cli.demo.ReportWriter;
import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.local.DemoRun;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.runtime.lifecycle.StopSignals;
import dev.rwml.worldmodel.hf.LoraConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml demo}: the whole pipeline on the embedded default, with live progress and a report.
 */
@Command(
        name = "demo",
        footer = {"", "Examples:", "  ./rwml demo", "  ./rwml demo --quick"},
        mixinStandardHelpOptions = true,
        description = {
            "Run RWML end to end on an embedded Kafka broker and schema registry: ALFWorld-style"
                    + " agents, a base world model (version 0), the prediction, reward and trainer"
                    + " stages, live progress, and a report with charts under <dir>/report.",
            "Each demo starts from fresh cluster data under <dir>/cluster (the previous demo's data"
                    + " is deleted at start and kept after it ends, for `rwml replay --dir`)."
        })
final class DemoCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--dir",
            defaultValue = ".rwml",
            description = "Cluster data, stream state and report (default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(
            names = "--minutes",
            description =
                    "How long the stages run (default: 6 for small/tiny, about 1 with --quick).")
    private Double minutes;

    @Option(
            names = "--versions",
            defaultValue = "0",
            description =
                    "Stop once this many versions after the base are published (0: no limit).")
    private int versions;

    @Option(
            names = "--agents",
            description = "Agents producing the RWML data (default: 4, 2 with --quick).")
    private Integer agents;

    @Option(
            names = "--size",
            defaultValue = "small",
            description =
                    "World-model size: small (d128 L2) or tiny (d32 L1) (default: ${DEFAULT-VALUE}).")
    private String size;

    @Option(
            names = "--model",
            paramLabel = "hf:DIR",
            description =
                    "A Hugging Face checkpoint directory as the world model instead of the small"
                            + " one (--size does not apply; no pretraining slice is made).")
    private String model;

    @Option(
            names = "--lora",
            arity = "0..1",
            fallbackValue = "",
            paramLabel = "SPEC",
            description =
                    "With --model: train LoRA adapters on the frozen checkpoint"
                            + " (r=16,alpha=32,dropout=0,targets=q+k+v+o+gate+up+down).")
    private String lora;

    @Option(
            names = "--quick",
            description = "A one-to-two-minute smoke run: tiny model, few transitions, 3 versions.")
    private boolean quick;

    @Override
    public Integer call() throws Exception {
        final Progress progress = new Progress(spec.commandLine().getOut(), LiveView.interactive());
        final DemoRun demo = new DemoRun(dir, settings(), hfBase(), progress);
        // Ctrl-C or SIGTERM asks the demo to stop; it then closes the stages before the cluster
        // they use (a JVM shutdown would stop both at once and leave the stages waiting out their
        // timeouts against a broker that is gone). A second signal exits at once.
        StopSignals.install()
                .thenAccept(signal -> demo.requestStop("interrupted (" + signal + ")"));
        final DemoRun.Result result = demo.run();
        if (!result.hasReport()) {
            return 1;
        }
        progress.say(
                "Report: %s", ReportWriter.write(result, dir.toAbsolutePath().resolve("report")));
        return 0;
    }

    /** The checkpoint of {@code --model hf:DIR}, if given. */
    Optional<DemoRun.HfBase> hfBase() {
        if (model == null) {
            if (lora != null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--lora adapts a pretrained model: use --model hf:DIR");
            }
            return Optional.empty();
        }
        if (!model.startsWith("hf:") || model.length() == 3) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--model takes hf:DIR, a Hugging Face checkpoint directory, not '"
                            + model
                            + "'");
        }
        return Optional.of(
                new DemoRun.HfBase(
                        Path.of(model.substring(3)),
                        Optional.ofNullable(lora).map(LoraConfig::parse)));
    }

    DemoSettings settings() {
        DemoSettings s = DemoSettings.of(size, quick);
        final Duration budget =
                minutes == null ? s.budget() : Duration.ofMillis(Math.round(minutes * 60_000));
        final int versionBudget = versions > 0 ? versions : s.versionBudget();
        s = s.withBudget(budget, versionBudget);
        return agents == null ? s : s.withAgents(agents);
    }
}
