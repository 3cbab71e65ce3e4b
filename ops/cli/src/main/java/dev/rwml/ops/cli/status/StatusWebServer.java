package dev.rwml.ops.cli.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live status page of a run on the JDK's HTTP server: {@code /} is a self-contained page (no
 * external scripts, the machine may be offline) that charts pass rate and throughput per version
 * and polls {@code /api/status}, the {@link RunStatus} as JSON. Read-only: it serves figures, it
 * changes nothing.
 */
public final class StatusWebServer implements AutoCloseable {

    /** The JSON endpoint the page polls. */
    public static final String API_PATH = "/api/status";

    private static final Logger LOG = LoggerFactory.getLogger(StatusWebServer.class);
    private static final String PAGE_RESOURCE = "status.html";

    private final HttpServer server;
    private final ExecutorService executor;

    private StatusWebServer(final HttpServer server, final ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Serves the page on {@code port} of every interface (0 picks a free port; see {@link #port()})
     * with figures from {@code source}, called once per API request.
     */
    public static StatusWebServer start(final int port, final Supplier<RunStatus> source) {
        final byte[] page = page();
        final HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve the status page on port "
                            + port
                            + " ("
                            + e.getMessage()
                            + "); choose another with --port",
                    e);
        }
        server.createContext(
                "/",
                exchange -> {
                    if (!exchange.getRequestURI().getPath().equals("/")) {
                        send(exchange, 404, "text/plain", bytes("not found; try / or " + API_PATH));
                        return;
                    }
                    send(exchange, 200, "text/html; charset=utf-8", page);
                });
        server.createContext(
                API_PATH,
                exchange -> {
                    try {
                        send(
                                exchange,
                                200,
                                "application/json",
                                bytes(StatusReport.json(source.get())));
                    } catch (RuntimeException e) {
                        LOG.warn("Status not available: {}", e.toString());
                        send(exchange, 503, "application/json", bytes(errorJson(e.getMessage())));
                    }
                });
        final ExecutorService executor =
                Executors.newFixedThreadPool(
                        2,
                        r -> {
                            final Thread t = new Thread(r, "rwml-status-web");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.start();
        LOG.info("Status page on port {}", server.getAddress().getPort());
        return new StatusWebServer(server, executor);
    }

    /** The port the page is served on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The page's address on this machine. */
    public URI uri() {
        return URI.create("http://localhost:" + port() + "/");
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private static byte[] page() {
        try (InputStream in = StatusWebServer.class.getResourceAsStream(PAGE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        "the status page " + PAGE_RESOURCE + " is missing from the rwml jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the status page", e);
        }
    }

    private static String errorJson(final String message) {
        return StatusReport.jsonValue(Map.of("error", message == null ? "unknown error" : message));
    }

    private static void send(
            final HttpExchange exchange, final int code, final String type, final byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
