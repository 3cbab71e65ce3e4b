package dev.rwml.ops.cli;

import dev.rwml.ops.cli.doctor.Check;
import dev.rwml.ops.cli.doctor.Checklist;
import dev.rwml.ops.cli.doctor.ClusterChecks;
import dev.rwml.ops.cli.doctor.HostChecks;
import dev.rwml.ops.cli.doctor.HostChecks.PortUse;
import dev.rwml.ops.cli.doctor.ModelChecks;
import dev.rwml.ops.embedded.EmbeddedCluster;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.serving.ServeConfig;
import dev.rwml.worldmodel.ModelRuntime;
import dev.rwml.worldmodel.model.VectorKernels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml doctor}: the checklist to run first when something is off, one line per check. */
@Command(
        name = "doctor",
        mixinStandardHelpOptions = true,
        description = {
            "Check what rwml needs, one line each, 'ok' or what to do: Java and its heap, free"
                    + " disk for --data-dir, free ports, the cluster's security settings, broker"
                    + " and registry (the running `rwml up` in --data-dir, or the one given as"
                    + " for every command), the PyTorch natives and the embedding model. Exits 0"
                    + " when all are ok, else 1.",
            "Each check has a time limit; loading PyTorch and the embedding model takes a few"
                    + " seconds."
        },
        footer = {
            "",
            "Examples:",
            "  ./rwml doctor",
            "  ./rwml doctor --client-config secure.properties --timeout 10"
        })
final class DoctorCommand implements Callable<Integer> {

    /** Loading the natives reads a few hundred MB from disk; a slow disk takes a while. */
    private static final Duration MODEL_LIMIT = Duration.ofMinutes(2);

    private static final Duration LOCAL_LIMIT = Duration.ofSeconds(10);

    @Spec private CommandSpec spec;

    @Mixin private ClusterOptions cluster;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "5",
            description =
                    "The longest the broker and the registry may take to answer (default:"
                            + " ${DEFAULT-VALUE}).")
    private int timeoutSeconds;

    @Override
    public Integer call() {
        final Duration timeout = Duration.ofSeconds(Math.max(1, timeoutSeconds));
        final List<Check> checks = new ArrayList<>(hostChecks());
        checks.addAll(clusterChecks(timeout));
        checks.addAll(modelChecks());
        return Checklist.run(checks, spec.commandLine().getOut()) ? 0 : 1;
    }

    /** Java and its heap, the data directory's disk, the default ports. */
    private List<Check> hostChecks() {
        final Path dataDir = cluster.dataDir();
        return List.of(
                new Check(
                        "java",
                        LOCAL_LIMIT,
                        "the JVM is overloaded",
                        () ->
                                HostChecks.java(
                                        Runtime.version(),
                                        Runtime.getRuntime().maxMemory(),
                                        VectorKernels.enabled())),
                new Check(
                        "disk",
                        LOCAL_LIMIT,
                        "the disk of " + dataDir + " hangs (a stale network mount?)",
                        () -> HostChecks.disk(dataDir, HostChecks.MIN_FREE_DISK)),
                new Check(
                        "ports",
                        LOCAL_LIMIT,
                        "the machine's network stack is overloaded",
                        () -> HostChecks.ports(portUses(dataDir))));
    }

    /**
     * The client config's security settings, the broker and the registry, as commands resolve them.
     */
    private List<Check> clusterChecks(final Duration timeout) {
        final Duration limit = timeout.plus(LOCAL_LIMIT);
        final String silent = "check the address and that the cluster runs";
        return List.of(
                new Check(
                        "security",
                        LOCAL_LIMIT,
                        "the key or trust store files hang",
                        () -> ClusterChecks.security(cluster.clientSettings(), settingsSource())),
                new Check(
                        "broker",
                        limit,
                        silent,
                        () -> ClusterChecks.broker(cluster.connection(), timeout, ifSilent())),
                new Check(
                        "registry",
                        limit,
                        silent,
                        () -> ClusterChecks.registry(cluster.connection(), timeout, ifSilent())));
    }

    /** The PyTorch natives and the default embedding model, loaded as the stages load them. */
    private List<Check> modelChecks() {
        final String hung = "it hangs; run with --verbose and see the log";
        return List.of(
                new Check(
                        "pytorch",
                        MODEL_LIMIT,
                        hung,
                        () -> {
                            spec.commandLine()
                                    .getErr()
                                    .println(
                                            "rwml doctor: loading PyTorch and the embedding model"
                                                    + " (a few seconds)");
                            return ModelChecks.pytorch(new ModelRuntime(1, "auto"));
                        }),
                new Check(
                        "embedding",
                        MODEL_LIMIT,
                        hung,
                        () ->
                                ModelChecks.embedding(
                                        EmbeddingSettings.defaults(), System.getenv())));
    }

    /**
     * The ports rwml listens on by default: {@code rwml serve}'s, the status page's, and those a
     * cluster recorded in the data directory, unless its {@code rwml up} is running there now.
     */
    private static List<PortUse> portUses(final Path dataDir) throws IOException {
        final List<PortUse> uses = new ArrayList<>();
        uses.add(new PortUse(ServeConfig.DEFAULT_PORT, "rwml serve", "pass --port to rwml serve"));
        uses.add(
                new PortUse(
                        StatusCommand.DEFAULT_WEB_PORT,
                        "rwml status --web",
                        "pass --port to rwml status --web"));
        if (!Files.exists(dataDir.resolve(ClusterOptions.CLUSTER_FILE))) {
            for (final int port : EmbeddedCluster.recordedPorts(dataDir)) {
                uses.add(
                        new PortUse(
                                port,
                                "rwml up in " + dataDir,
                                "start rwml up with another --data-dir (it takes free ports)"));
            }
        }
        return uses;
    }

    /** Where the cluster's security settings come from, for the fix of a wrong one. */
    private String settingsSource() {
        final Path file = cluster.clientConfigFile();
        return file == null ? "no client config" : file.toString();
    }

    /** What to do when the cluster does not answer, by where its address came from. */
    private String ifSilent() {
        return switch (cluster.bootstrapSource()) {
            case FLAG, ENVIRONMENT, CLIENT_CONFIG ->
                    "check the address and that the cluster runs (`./rwml up` starts a local one)";
            case CLUSTER_FILE ->
                    "the `rwml up` that wrote "
                            + cluster.dataDir().resolve(ClusterOptions.CLUSTER_FILE)
                            + " is not answering; stop it and start it again with `./rwml up"
                            + " --data-dir "
                            + cluster.dataDir()
                            + "`";
        };
    }
}
