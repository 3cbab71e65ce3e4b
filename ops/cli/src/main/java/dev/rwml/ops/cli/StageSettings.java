package dev.rwml.ops.cli;

import dev.rwml.runtime.settings.SettingsDefinition;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * A stage's settings beyond its flags: a properties file and {@code --set key=value} overrides,
 * loaded with the one precedence of {@link SettingsDefinition}: defaults, a running {@code rwml
 * up}, the {@code --client-config} file of every command, the stage's {@code --config} file, the
 * environment, {@code --set}, then the command's flags.
 */
final class StageSettings {

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "A properties file of the stage's settings (see --help-config).")
    Path file;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "One setting, over the file and the environment; repeatable.")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Option(
            names = "--help-config",
            description = "Print every setting of the stage (key, default, meaning) and exit.")
    boolean helpConfig;

    /** Prints the stage's table when {@code --help-config} was given; returns whether it was. */
    boolean printedHelp(final SettingsDefinition definition, final PrintWriter out) {
        if (helpConfig) {
            out.println("Settings of every stage:");
            out.print(SettingsDefinition.commonMarkdownTable());
            out.println();
            out.println("Settings of `rwml " + definition.stage().command() + "`:");
            out.print(definition.markdownTable());
            out.flush();
        }
        return helpConfig;
    }

    /**
     * Flags as settings: {@code key, value, key, value...}; flags not given (null) are left out.
     */
    static Map<String, String> flags(final String... keysAndValues) {
        final Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (keysAndValues[i + 1] != null) {
                flags.put(keysAndValues[i], keysAndValues[i + 1]);
            }
        }
        return flags;
    }

    /** Every source of the stage's settings; {@code flags} are the command's own, highest. */
    SettingsDefinition.Sources sources(
            final ClusterOptions cluster, final Map<String, String> flags) {
        final Map<String, String> all = new LinkedHashMap<>(cluster.flags());
        all.putAll(flags);
        // The connection file every command reads sits just below the stage's own file, so one
        // file secures every command, and a stage's --config still has the last word on a key.
        final Map<String, String> below = new LinkedHashMap<>(cluster.runningCluster());
        below.putAll(cluster.clientSettings());
        return new SettingsDefinition.Sources(
                below, Optional.ofNullable(file), System.getenv(), overrides, all);
    }
}
