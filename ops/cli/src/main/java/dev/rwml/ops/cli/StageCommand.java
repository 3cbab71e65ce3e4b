package dev.rwml.ops.cli;

import dev.rwml.ops.cli.metrics.MetricsOptions;
import dev.rwml.runtime.settings.SettingsDefinition;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command that runs one stage of a run until Ctrl-C: {@code --run}, the cluster flags, the
 * stage's settings ({@code --help-config} prints their table) and the metrics endpoint.
 */
abstract class StageCommand implements Callable<Integer> {

    @Option(names = "--run", paramLabel = "NAME", description = "The run.")
    protected String run;

    @Mixin protected ClusterOptions cluster;
    @Mixin protected StageSettings settings;
    @Mixin private MetricsOptions metrics;
    @Spec private CommandSpec spec;

    private final SettingsDefinition definition;

    /** A command of the stage whose settings {@code definition} declares. */
    protected StageCommand(final SettingsDefinition definition) {
        this.definition = definition;
    }

    /**
     * Loads the stage's settings and returns what runs the stage to its exit code; invalid settings
     * fail here, before the metrics endpoint opens.
     */
    protected abstract IntSupplier load();

    @Override
    public final Integer call() {
        if (settings.printedHelp(definition, spec.commandLine().getOut())) {
            return 0;
        }
        final IntSupplier stage = load();
        try (MetricsOptions.Exposure endpoint = metrics.expose()) {
            return stage.getAsInt();
        }
    }
}
