package dev.rwml.ops.cli;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelCommands;
import dev.rwml.events.ModelVersion;
import dev.rwml.runtime.lifecycle.StopSignals;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml models list|watch|export}: the published versions of a run. */
@Command(
        name = "models",
        footer = {
            "",
            "Examples:",
            "  ./rwml models list --run r1",
            "  ./rwml models export --run r1 --version 3 --dir exported/"
        },
        mixinStandardHelpOptions = true,
        description = "List, follow or export the model versions of a run.",
        subcommands = {
            ModelsCommand.ListVersions.class,
            ModelsCommand.Watch.class,
            ModelsCommand.Export.class,
            CommandLine.HelpCommand.class
        })
final class ModelsCommand implements Runnable {

    @Spec private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "Name one of: list, watch, export.");
    }

    /** The options every models subcommand takes. */
    static final class Target {
        @Option(names = "--run", required = true, paramLabel = "NAME", description = "The run.")
        String run;

        @Mixin ClusterOptions cluster;
    }

    @Command(
            name = "list",
            footer = {"", "Examples:", "  ./rwml models list --run r1"},
            mixinStandardHelpOptions = true,
            description = "One line per version: parent, counters, metrics and lineage.")
    static final class ListVersions implements Callable<Integer> {
        @Mixin private Target target;
        @Spec private CommandSpec spec;

        @Override
        public Integer call() {
            final List<ModelVersion> versions =
                    ModelCommands.list(target.cluster.connection(), target.run);
            final PrintWriter out = spec.commandLine().getOut();
            if (versions.isEmpty()) {
                out.println(
                        "run "
                                + target.run
                                + " has no versions yet: `rwml model init --run "
                                + target.run
                                + "` publishes version 0");
            }
            versions.forEach(v -> out.println(ModelCommands.describe(v)));
            return 0;
        }
    }

    @Command(
            name = "watch",
            footer = {"", "Examples:", "  ./rwml models watch --run r1    # Ctrl-C to leave"},
            mixinStandardHelpOptions = true,
            description = "Print each new verified version as it is published, until Ctrl-C.")
    static final class Watch implements Callable<Integer> {
        @Mixin private Target target;
        @Spec private CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            final PrintWriter out = spec.commandLine().getOut();
            try (AutoCloseable watch =
                    ModelCommands.watch(
                            target.cluster.connection(),
                            target.run,
                            Optional.empty(),
                            line -> {
                                out.println(line);
                                out.flush();
                            })) {
                // Until SIGTERM or Ctrl-C; the watch is closed and the command exits 0.
                StopSignals.install().join();
            }
            return 0;
        }
    }

    @Command(
            name = "export",
            footer = {
                "",
                "Examples:",
                "  ./rwml models export --run r1 --version 3 --dir exported/",
                "  ./rwml models export --run mine --version 3 --hf /models/mine-v3"
            },
            description = {
                "Write a version's verified artifact (safetensors, config, tokenizer.json in a"
                        + " zip) to a directory.",
                "With --hf DIR, write a version of a run initialised from a Hugging Face"
                        + " checkpoint as a Hugging Face checkpoint directory instead"
                        + " (config.json, model.safetensors, tokenizer files)."
            })
    static final class Export implements Callable<Integer> {
        // Not mixinStandardHelpOptions: its -V/--version would clash with --version, the version
        // exported, and picocli then leaves --help out.
        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "Show this help message and exit.")
        private boolean help;

        @Mixin private Target target;
        @Spec private CommandSpec spec;

        @Option(
                names = "--version",
                paramLabel = "N",
                description = "The version (default: the latest).")
        private Long version;

        @Option(
                names = "--dir",
                defaultValue = ".",
                description = "Where to write it (default: the current directory).")
        private Path dir;

        @Option(
                names = "--hf",
                paramLabel = "DIR",
                description = "Write a Hugging Face checkpoint directory here instead of a zip.")
        private Path hf;

        @Override
        public Integer call() throws Exception {
            if (hf != null) {
                return exportHf();
            }
            final Path file =
                    ModelCommands.export(
                            target.cluster.connection(),
                            target.run,
                            version == null ? OptionalLong.empty() : OptionalLong.of(version),
                            Optional.empty(),
                            dir);
            spec.commandLine().getOut().println(file);
            return 0;
        }

        private int exportHf() throws Exception {
            try (ModelChannel channel = ModelChannel.of(target.cluster.connection(), target.run);
                    ModelChannelReader reader =
                            new ModelChannelReader(
                                    channel, Optional.empty(), Duration.ofSeconds(60))) {
                final VerifiedArtifact artifact =
                        version == null
                                ? reader.latest()
                                        .orElseThrow(
                                                () ->
                                                        new IllegalStateException(
                                                                "run "
                                                                        + target.run
                                                                        + " has no version yet"))
                                : reader.fetch(version);
                final ModelFormat format = ModelFormat.of(artifact.bytes());
                if (format == ModelFormat.SMALL) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(),
                            "version "
                                    + artifact.version()
                                    + " of run "
                                    + target.run
                                    + " is in format "
                                    + artifact.manifest().getArtifact().getFormat()
                                    + ", not a Hugging Face checkpoint: export it without --hf");
                }
                final HfCheckpoint checkpoint;
                final boolean adapter = format == ModelFormat.LORA;
                if (adapter) {
                    final LoraCheckpoint lora = LoraCheckpoint.fromBytes(artifact.bytes());
                    final VerifiedArtifact base = reader.fetch(lora.baseVersion());
                    lora.requireBase(base.manifest().getArtifact().getSha256());
                    checkpoint = lora.mergedInto(HfCheckpoint.fromBytes(base.bytes()));
                } else {
                    checkpoint = HfCheckpoint.fromBytes(artifact.bytes());
                }
                checkpoint.writeTo(hf);
                spec.commandLine()
                        .getOut()
                        .printf(
                                Locale.ROOT,
                                "wrote version %d of run %s as a Hugging Face checkpoint%s: %s (%s)%n",
                                artifact.version(),
                                target.run,
                                adapter ? ", its LoRA adapter merged into version 0" : "",
                                hf,
                                String.join(", ", checkpoint.files().keySet()));
            }
            return 0;
        }
    }
}
