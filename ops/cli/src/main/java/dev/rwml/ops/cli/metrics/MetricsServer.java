package dev.rwml.ops.cli.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link PrometheusMeterRegistry} at {@code /metrics} in the Prometheus text format on the
 * JDK's HTTP server, for Prometheus to scrape a stage.
 */
public final class MetricsServer implements AutoCloseable {

    /** The path Prometheus scrapes. */
    public static final String PATH = "/metrics";

    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(final HttpServer server, final ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Serves {@code registry} on {@code port} of every interface (0 picks a free port). */
    public static MetricsServer start(final int port, final PrometheusMeterRegistry registry) {
        final HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve metrics on port "
                            + port
                            + " ("
                            + e.getMessage()
                            + "); choose another with --metrics-port",
                    e);
        }
        server.createContext(
                "/",
                exchange -> {
                    final boolean found = exchange.getRequestURI().getPath().equals(PATH);
                    final byte[] body =
                            (found ? registry.scrape() : "not found; scrape " + PATH + "\n")
                                    .getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders()
                            .set("Content-Type", found ? CONTENT_TYPE : "text/plain");
                    exchange.sendResponseHeaders(found ? 200 : 404, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
        final ExecutorService executor =
                Executors.newSingleThreadExecutor(
                        r -> {
                            final Thread t = new Thread(r, "rwml-metrics-http");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.start();
        LOG.info("Prometheus metrics on port {} at {}", server.getAddress().getPort(), PATH);
        return new MetricsServer(server, executor);
    }

    /** The port metrics are served on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The scrape address on this machine. */
    public URI uri() {
        return URI.create("http://localhost:" + port() + PATH);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
