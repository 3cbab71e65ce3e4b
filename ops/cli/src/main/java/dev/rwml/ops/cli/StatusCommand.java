package dev.rwml.ops.cli;

import dev.rwml.ops.cli.status.StatusReport;
import dev.rwml.ops.cli.status.StatusWebServer;
import dev.rwml.pipeline.watch.LagMeter;
import dev.rwml.pipeline.watch.RunStatus;
import dev.rwml.pipeline.watch.StatusCollector;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StopSignals;
import dev.rwml.runtime.settings.HttpAccess;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml status}: a run's lag per stage, versions, rates and dead letters, or a live page. */
@Command(
        name = "status",
        footer = {
            "",
            "Examples:",
            "  ./rwml status --run r1",
            "  ./rwml status --run r1 --web --port 8088"
        },
        mixinStandardHelpOptions = true,
        description = {
            "Show a run's lag per stage (consumer group offsets against the end of each input"
                    + " topic), its published versions with their metrics and pass rates, the"
                    + " records/s of its topics (two samples --sample-seconds apart) and its dead"
                    + " letters.",
            "With --web, serve a live page with charts of pass rate and throughput per version"
                    + " until Ctrl-C."
        })
final class StatusCommand implements Callable<Integer> {

    /** The port of the status page unless --port says otherwise. */
    static final int DEFAULT_WEB_PORT = 8088;

    @Spec private CommandSpec spec;

    @Option(names = "--run", required = true, paramLabel = "NAME", description = "The run.")
    private String run;

    @Mixin private ClusterOptions cluster;

    @Option(
            names = "--group",
            paramLabel = "STAGE=ID",
            description =
                    "The consumer group or application id of a stage started with another"
                            + " application.id (prediction, reward, trainer); repeatable.")
    private Map<String, String> groups = Map.of();

    @Option(names = "--json", description = "Print the status as one JSON object.")
    private boolean json;

    @Option(
            names = "--sample-seconds",
            defaultValue = "3",
            paramLabel = "S",
            description =
                    "Seconds between the two samples that give records/s; 0 reads once and"
                            + " shows no rates (default: ${DEFAULT-VALUE}).")
    private int sampleSeconds;

    @Option(names = "--web", description = "Serve the live status page instead of printing.")
    private boolean web;

    @Option(
            names = "--port",
            defaultValue = "" + DEFAULT_WEB_PORT,
            description = "Port of the status page (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(
            names = "--host",
            paramLabel = "ADDRESS",
            defaultValue = HttpAccess.LOOPBACK,
            description =
                    "The address the status page listens on (default: ${DEFAULT-VALUE}, this"
                            + " machine only); any other needs an API key, since the page shows"
                            + " dead letters.")
    private String host;

    @Option(
            names = "--api-key",
            paramLabel = "KEY",
            description =
                    "The key requests to the page must send as 'Authorization: Bearer KEY'"
                            + " (default: $RWML_API_KEY; none on loopback).")
    private String apiKey;

    @Override
    public Integer call() throws InterruptedException {
        if (sampleSeconds < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--sample-seconds must be 0 or more, was " + sampleSeconds);
        }
        final PrintWriter out = spec.commandLine().getOut();
        final List<LagMeter.Stage> stages = stages(LagMeter.Stage.defaults(run));
        // Refused before connecting: an address other machines reach needs a key.
        final HttpAccess access = web ? HttpAccess.of(host, apiKey) : null;
        try (StatusCollector collector = new StatusCollector(run, cluster.connection(), stages)) {
            if (web) {
                return serve(collector, access, out);
            }
            RunStatus status = collector.collect();
            if (sampleSeconds > 0) {
                // Rates need two samples; a CLI has nothing better to do in between.
                Thread.sleep(Duration.ofSeconds(sampleSeconds).toMillis());
                status = collector.collect();
            }
            out.print(
                    json
                            ? StatusReport.json(status) + System.lineSeparator()
                            : StatusReport.text(status));
            out.flush();
            return 0;
        }
    }

    /** The default stages with the ids given by --group. */
    private List<LagMeter.Stage> stages(final List<LagMeter.Stage> defaults) {
        final Map<StageName, String> ids = new EnumMap<>(StageName.class);
        final Set<String> unknown = new TreeSet<>();
        groups.forEach(
                (stage, id) -> {
                    try {
                        ids.put(StageName.parse(stage), id);
                    } catch (IllegalArgumentException e) {
                        unknown.add(stage);
                    }
                });
        if (!unknown.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--group names unknown stages "
                            + unknown
                            + "; use prediction, reward or trainer");
        }
        return defaults.stream()
                .map(s -> ids.containsKey(s.name()) ? s.withGroupId(ids.get(s.name())) : s)
                .toList();
    }

    private int serve(
            final StatusCollector collector, final HttpAccess access, final PrintWriter out)
            throws InterruptedException {
        try (StatusWebServer server = StatusWebServer.start(access, port, collector::collect)) {
            out.println("status page of run " + run + ": " + server.uri() + " (Ctrl-C stops)");
            out.flush();
            StopSignals.install().join();
        }
        return 0;
    }
}
