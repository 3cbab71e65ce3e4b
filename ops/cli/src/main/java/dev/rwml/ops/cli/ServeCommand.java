package dev.rwml.ops.cli;

import dev.rwml.runtime.settings.HttpAccess;
import dev.rwml.serving.ServeApp;
import dev.rwml.serving.ServeConfig;
import dev.rwml.serving.ServeLimits;
import dev.rwml.worldmodel.ModelRuntime;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml serve}: the run's world model over vLLM's OpenAI-compatible API until Ctrl-C. */
@Command(
        name = "serve",
        description = {
            "Serve a run's world model over an OpenAI-compatible HTTP API (vLLM's completions"
                    + " contract, chat completions, /tokenize, /v1/models) and a world-model call"
                    + " for agents (POST /v1/world-model/predict), following the run's model"
                    + " versions (--version pins one). Every model answer names the version that"
                    + " answered: header x-rwml-model-version and model \"<run>-v<version>\"."
                    + " /health and /metrics (Prometheus) need no key. docs/serving.md has the"
                    + " details.",
            "",
            "Example:",
            "  rwml serve --run demo --port 8000",
            "  curl -s localhost:8000/v1/completions -H 'Content-Type: application/json' \\",
            "    -d '{\"prompt\":\"Task: heat an egg\",\"n\":2,\"max_tokens\":32,\"seed\":7}'",
            ""
        })
final class ServeCommand implements Callable<Integer> {

    // Not mixinStandardHelpOptions: its -V/--version would clash with --version, the version
    // served, and picocli then leaves --help out.
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help message and exit.")
    private boolean help;

    @Option(names = "--run", required = true, paramLabel = "NAME", description = "The run.")
    private String run;

    @Option(
            names = "--version",
            paramLabel = "N",
            description = "Serve version N only (default: the latest, swapped as new ones arrive).")
    private Long version;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "" + ServeConfig.DEFAULT_PORT,
            description = "The port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    private int port;

    @Option(
            names = "--host",
            paramLabel = "ADDRESS",
            defaultValue = HttpAccess.LOOPBACK,
            description =
                    "The address to listen on (default: ${DEFAULT-VALUE}, this machine only);"
                            + " any other needs an API key.")
    private String host;

    @Option(
            names = "--api-key",
            paramLabel = "KEY",
            description =
                    "The key requests must send as 'Authorization: Bearer KEY' (default:"
                            + " $RWML_API_KEY; none on loopback).")
    private String apiKey;

    @Option(
            names = "--queue",
            paramLabel = "N",
            defaultValue = "64",
            description =
                    "Requests that may wait for the model; more are answered 503 with"
                            + " Retry-After (default: ${DEFAULT-VALUE}).")
    private int queue;

    @Option(
            names = "--threads",
            paramLabel = "N",
            defaultValue = "1",
            description = "PyTorch intra-op threads (model.threads; default: ${DEFAULT-VALUE}).")
    private int threads;

    @Mixin private DeviceOption device;
    @Mixin private ClusterOptions cluster;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() {
        final ServeConfig config =
                new ServeConfig(
                        run,
                        version == null ? OptionalLong.empty() : OptionalLong.of(version),
                        host,
                        port,
                        HttpAccess.of(host, apiKey).apiKey(),
                        ServeLimits.defaults().withQueueCapacity(queue),
                        new ModelRuntime(threads, device.device == null ? "auto" : device.device),
                        cluster.connection());
        return ServeApp.run(config, spec.commandLine().getOut());
    }
}
