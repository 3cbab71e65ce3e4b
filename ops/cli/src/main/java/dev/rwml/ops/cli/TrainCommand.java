package dev.rwml.ops.cli;

import dev.rwml.ops.cli.metrics.MetricsOptions;
import dev.rwml.trainer.TrainerApp;
import dev.rwml.trainer.TrainerConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml train}: runs the continual trainer of a run until Ctrl-C. */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        description =
                "Train the run's world model on rwml.<run>.rewards (GRPO, or SFT for the WM-SFT"
                        + " baseline) and publish versions to rwml.<run>.models, exactly once with"
                        + " the consumed offsets.")
final class TrainCommand implements Callable<Integer> {

    @Option(names = "--run", paramLabel = "NAME", description = "The run.")
    private String run;

    @Option(
            names = "--objective",
            paramLabel = "grpo|sft",
            description = "The training objective (default: grpo, or the config's).")
    private String objective;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Mixin private MetricsOptions metrics;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() {
        if (settings.printedHelp(TrainerConfig.DEFINITION, spec.commandLine().getOut())) {
            return 0;
        }
        final TrainerConfig config =
                TrainerConfig.load(
                        settings.sources(
                                cluster, StageSettings.flags("run", run, "objective", objective)));
        try (MetricsOptions.Exposure endpoint = metrics.expose()) {
            return TrainerApp.run(config);
        }
    }
}
