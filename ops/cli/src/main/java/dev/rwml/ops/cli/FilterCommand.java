package dev.rwml.ops.cli;

import dev.rwml.filter.FilterApp;
import dev.rwml.filter.FilterConfig;
import dev.rwml.worldmodel.ModelRuntime;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code rwml filter}: runs the filter stage of a run until Ctrl-C. */
@Command(
        name = "filter",
        footer = {"", "Examples:", "  ./rwml filter --run r1", "  ./rwml filter --help-config"},
        mixinStandardHelpOptions = true,
        description =
                "Judge each transition with a filter model before G-sampling (K tries scored at the"
                        + " data-stage threshold); write every verdict to rwml.<run>.difficulty and"
                        + " the kept transitions to rwml.<run>.curriculum, which `rwml predict"
                        + " --set input=curriculum` reads.")
final class FilterCommand extends StageCommand {

    @Mixin private DeviceOption device;

    FilterCommand() {
        super(FilterConfig.DEFINITION);
    }

    @Override
    protected IntSupplier load() {
        final FilterConfig config =
                FilterConfig.load(
                        settings.sources(
                                cluster,
                                StageSettings.flags(
                                        "run", run, ModelRuntime.DEVICE, device.device)));
        return () -> FilterApp.run(config);
    }
}
