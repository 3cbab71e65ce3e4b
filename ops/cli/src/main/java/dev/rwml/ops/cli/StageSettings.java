package dev.rwml.ops.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * A stage's settings beyond the cluster: a properties file and {@code --set key=value} overrides,
 * layered over the stage's defaults and its {@code RWML_<STAGE>_*} environment variables.
 */
final class StageSettings {

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "A properties file of the stage's settings (see README: Configuration).")
    Path file;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "One setting, over the file and the environment; repeatable.")
    Map<String, String> overrides = new LinkedHashMap<>();

    /** The overrides plus the run and cluster every stage takes from its own options. */
    Map<String, String> with(final Map<String, String> fromOptions) {
        final Map<String, String> all = new LinkedHashMap<>(overrides);
        all.putAll(fromOptions);
        return all;
    }
}
