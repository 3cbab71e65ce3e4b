package dev.rwml.ops.cli.metrics;

import dev.rwml.ops.cli.web.WebServer;
import dev.rwml.runtime.settings.HttpAccess;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The {@code --metrics-port} option of the stage commands (a picocli mixin): given a port, the
 * stage's meters are served for Prometheus at {@code http://<host>:<port>/metrics}.
 *
 * <pre>{@code
 * @Mixin MetricsOptions metrics;
 * ...
 * try (MetricsOptions.Exposure exposure = metrics.expose()) {
 *     PredictionApp.run(config);          // meters on Metrics.globalRegistry
 * }
 * }</pre>
 */
public final class MetricsOptions {

    /** The path Prometheus scrapes. */
    public static final String PATH = "/metrics";

    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            description =
                    "Serve the stage's metrics for Prometheus at http://<host>:PORT/metrics"
                            + " (default: not served).")
    private Integer port;

    @Option(
            names = "--metrics-host",
            paramLabel = "ADDRESS",
            defaultValue = HttpAccess.LOOPBACK,
            description =
                    "The address the metrics are served on (default: ${DEFAULT-VALUE}, this"
                            + " machine only); any other needs --metrics-api-key.")
    private String host;

    @Option(
            names = "--metrics-api-key",
            paramLabel = "KEY",
            description =
                    "The key a scraper must send as 'Authorization: Bearer KEY' (default:"
                            + " $RWML_API_KEY; none on loopback).")
    private String apiKey;

    /** The port asked for, or null when metrics are not served. */
    public Integer port() {
        return port;
    }

    /**
     * Adds a Prometheus registry (with JVM and process meters) to Micrometer's global registry,
     * where the stages' {@code run} entry points register their meters, and serves it; does nothing
     * without {@code --metrics-port}. Close the result to stop serving.
     */
    public Exposure expose() {
        return port == null
                ? new Exposure(null, null)
                : expose(HttpAccess.of(host, apiKey), port, Metrics.globalRegistry);
    }

    /**
     * Serves a new Prometheus registry on {@code port} that receives the meters of {@code global}
     * (a composite registry, as Micrometer's global one) from now on.
     */
    public static Exposure expose(
            final HttpAccess access, final int port, final CompositeMeterRegistry global) {
        final PrometheusMeterRegistry prometheus =
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // GC meters listen to JVM notifications until closed, so they are closed with the rest.
        final JvmGcMetrics gc = new JvmGcMetrics();
        bindJvm(prometheus, gc);
        global.add(prometheus);
        final Runnable cleanup =
                () -> {
                    global.remove(prometheus);
                    gc.close();
                    prometheus.close();
                };
        try {
            return new Exposure(
                    WebServer.start(
                            "metrics",
                            access,
                            port,
                            "--metrics-port",
                            Map.of(
                                    PATH,
                                    path ->
                                            WebServer.Response.text(
                                                    200, CONTENT_TYPE, prometheus.scrape()))),
                    cleanup);
        } catch (RuntimeException e) {
            cleanup.run();
            throw e;
        }
    }

    private static void bindJvm(final MeterRegistry registry, final JvmGcMetrics gc) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        gc.bindTo(registry);
    }

    /**
     * A running metrics endpoint (or none), closed when the stage stops.
     *
     * @param server the endpoint, null when metrics are not served
     * @param cleanup detaches and closes the Prometheus registry, null with no endpoint
     */
    public record Exposure(WebServer server, Runnable cleanup) implements AutoCloseable {

        /** The scrape address on this machine; null when metrics are not served. */
        public URI uri() {
            return server == null ? null : server.uri(PATH);
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
                cleanup.run();
            }
        }
    }
}
