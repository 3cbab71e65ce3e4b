package dev.rwml.ops.cli;

import dev.rwml.ops.embedded.ClusterSecurity;
import dev.rwml.ops.embedded.EmbeddedCluster;
import dev.rwml.runtime.lifecycle.StopSignals;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.CatalogSettings;
import dev.rwml.schemas.topics.EnsureResult;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rwml up}: runs the embedded Kafka broker and schema registry in the foreground, with the
 * pipeline's topics created, until Ctrl-C or SIGTERM.
 */
@Command(
        name = "up",
        footer = {"", "Examples:", "  ./rwml up", "  ./rwml up --secure --run demo"},
        mixinStandardHelpOptions = true,
        description = {
            "Start an embedded Kafka broker and Apicurio schema registry, create the topics,"
                    + " print their addresses, and run until Ctrl-C.",
            "Data stays under --data-dir: starting again there keeps topics, schemas and ports.",
            "With --secure: TLS everywhere, SCRAM-SHA-512 logins and ACLs; the client settings"
                    + " are written to <data-dir>/secure/client.properties, which every rwml"
                    + " command in the same --data-dir uses by itself."
        })
final class UpCommand implements Callable<Integer> {

    /** Printed first on its own line, so scripts can read the addresses that follow. */
    static final String BOOTSTRAP_PREFIX = "bootstrap.servers=";

    static final String REGISTRY_PREFIX = "schema.registry.url=";
    static final String CLIENT_CONFIG_PREFIX = "client.config=";
    static final String READY_LINE = "rwml up: ready (Ctrl-C to stop)";

    @Spec private CommandSpec spec;

    @Option(
            names = "--data-dir",
            defaultValue = ".rwml",
            description =
                    "Where the broker and registry keep their data (default: ${DEFAULT-VALUE}).")
    private Path dataDir;

    @Option(
            names = "--partitions",
            description = "Partitions of each created topic (default: the topic catalog's).")
    private Integer partitions;

    @Option(
            names = "--run",
            paramLabel = "NAME",
            description = "Also create the topics of this training run (rwml.<NAME>.*).")
    private String run;

    @Option(
            names = "--secure",
            description =
                    "Run the broker with a SASL_SSL listener (SCRAM-SHA-512), ACLs enforced"
                            + " (StandardAuthorizer, nothing allowed without an ACL) and the"
                            + " registry on HTTPS; certificates (a local CA) and passwords are made"
                            + " once per --data-dir and reused.")
    private boolean secure;

    @Override
    public Integer call() throws Exception {
        final PrintWriter out = spec.commandLine().getOut();
        final TopicCatalog catalog = catalog();
        final List<TopicSpec<?, ?>> topics = new ArrayList<>(catalog.shared());
        if (run != null) {
            topics.addAll(catalog.forRun(run));
        }
        // SIGTERM or Ctrl-C returns from the wait below; the cluster is closed in the finally, and
        // the command exits 0 like every long-running command.
        final CompletableFuture<String> stop = StopSignals.install();
        try (EmbeddedCluster cluster =
                secure ? EmbeddedCluster.startSecure(dataDir) : EmbeddedCluster.start(dataDir)) {
            try {
                serve(cluster, catalog, topics, out, stop);
            } finally {
                deleteClusterFile();
            }
        }
        out.println("rwml up: stopped");
        out.flush();
        return 0;
    }

    private void serve(
            final EmbeddedCluster cluster,
            final TopicCatalog catalog,
            final List<TopicSpec<?, ?>> topics,
            final PrintWriter out,
            final CompletableFuture<String> stop)
            throws java.io.IOException {
        final EnsureResult result =
                ensureTopics(Connection.from(cluster.adminSettings()), catalog, topics);
        out.println(BOOTSTRAP_PREFIX + cluster.bootstrapServers());
        out.println(REGISTRY_PREFIX + cluster.schemaRegistryUrl());
        out.println("data.dir=" + cluster.dataDir());
        cluster.security().ifPresent(security -> printSecurity(security, out));
        out.println("topics.created=" + String.join(",", result.created()));
        out.println("topics.existing=" + String.join(",", result.existing()));
        result.warnings().forEach(w -> out.println("warning: " + w));
        writeClusterFile(cluster);
        out.println(READY_LINE);
        out.flush();
        stop.join();
    }

    private static void printSecurity(final ClusterSecurity security, final PrintWriter out) {
        out.println(CLIENT_CONFIG_PREFIX + security.clientProperties());
        out.println("admin.config=" + security.adminProperties());
        out.println("ca.certificate=" + security.caCertificate());
        out.println(
                "security: SASL_SSL with "
                        + ClusterSecurity.MECHANISM
                        + ", ACLs enforced, registry on HTTPS; user "
                        + ClusterSecurity.CLIENT_USER
                        + " may use every topic, group and transactional id starting '"
                        + ClusterSecurity.RESOURCE_PREFIX
                        + "'.");
        out.println(
                "security: rwml commands with the same --data-dir use "
                        + security.clientProperties().getFileName()
                        + " by themselves; elsewhere pass --client-config "
                        + security.clientProperties()
                        + " (Kafka tools: --command-config; super user "
                        + ClusterSecurity.SUPER_USER
                        + " in "
                        + security.adminProperties().getFileName()
                        + ").");
    }

    /** Lets other commands find this cluster (and how to log in to it) while it runs. */
    private void writeClusterFile(final EmbeddedCluster cluster) throws IOException {
        final Path file = dataDir.resolve(ClusterOptions.CLUSTER_FILE);
        final Path tmp = dataDir.resolve(ClusterOptions.CLUSTER_FILE + ".tmp");
        final StringBuilder text =
                new StringBuilder()
                        .append(ClusterOptions.BOOTSTRAP_KEY)
                        .append('=')
                        .append(cluster.bootstrapServers())
                        .append('\n')
                        .append(ClusterOptions.REGISTRY_KEY)
                        .append('=')
                        .append(cluster.schemaRegistryUrl())
                        .append('\n');
        cluster.security()
                .ifPresent(
                        s ->
                                text.append(ClusterOptions.CLIENT_CONFIG_KEY)
                                        .append('=')
                                        .append(s.clientProperties())
                                        .append('\n'));
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private void deleteClusterFile() {
        try {
            Files.deleteIfExists(dataDir.resolve(ClusterOptions.CLUSTER_FILE));
        } catch (IOException e) {
            // The next `rwml up` overwrites it; commands then fail to connect with a clear error.
        }
    }

    private TopicCatalog catalog() {
        final CatalogSettings defaults = CatalogSettings.defaults();
        return new TopicCatalog(
                partitions == null ? defaults : defaults.withPartitions(partitions));
    }

    /** Creates the topics as the cluster's super user when it is secure. */
    private static EnsureResult ensureTopics(
            final Connection connection,
            final TopicCatalog catalog,
            final List<TopicSpec<?, ?>> topics) {
        try (Admin admin = connection.admin()) {
            return new TopicAdmin(admin, catalog).ensure(topics);
        }
    }
}
