package dev.rwml.ops.cli.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rwml.runtime.settings.HttpAccess;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one embedded HTTP server of the CLI, on the JDK's HTTP server: a few read-only routes (the
 * status page and its API, a stage's Prometheus {@code /metrics}) on a port of this machine unless
 * told otherwise, any other address asking every request for the API key ({@link HttpAccess}),
 * answered by daemon threads. A path ending in {@code /} routes everything below it; any other path
 * must match exactly; the rest is 404.
 */
public final class WebServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WebServer.class);
    private static final int THREADS = 2;

    /**
     * One answer.
     *
     * @param status the HTTP status code
     * @param contentType the {@code Content-Type} header
     * @param body the bytes sent
     */
    public record Response(int status, String contentType, byte[] body) {

        /** A UTF-8 text answer of the given type. */
        public static Response text(final int status, final String contentType, final String body) {
            return new Response(status, contentType, body.getBytes(StandardCharsets.UTF_8));
        }

        /** A plain-text 404 naming where to look instead. */
        public static Response notFound(final String hint) {
            return text(404, "text/plain; charset=utf-8", "not found; " + hint + "\n");
        }
    }

    /** Answers the requests of one route; {@code path} is the request's path. */
    @FunctionalInterface
    public interface Handler {
        Response handle(String path) throws IOException;
    }

    private final String what;
    private final HttpServer server;
    private final ExecutorService executor;

    private WebServer(final String what, final HttpServer server, final ExecutorService executor) {
        this.what = what;
        this.server = server;
        this.executor = executor;
    }

    /**
     * Serves {@code routes} on {@code port} (0 picks a free port; see {@link #port()}).
     *
     * @param what what is served, for logs, thread names and errors ({@code status page})
     * @param access the address listened on and the key it asks for
     * @param port the port
     * @param portOption the option that chooses the port, named when it is taken
     * @param routes handlers by path, in the order the 404 answer lists them
     */
    public static WebServer start(
            final String what,
            final HttpAccess access,
            final int port,
            final String portOption,
            final Map<String, Handler> routes) {
        final HttpServer server;
        try {
            server = access.listen(port);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve the "
                            + what
                            + " on port "
                            + port
                            + " ("
                            + e.getMessage()
                            + "); choose another with "
                            + portOption,
                    e);
        }
        final Map<String, Handler> table = new LinkedHashMap<>(routes);
        final String hint = "try " + String.join(" or ", table.keySet());
        server.createContext(
                "/",
                exchange -> {
                    Response response;
                    try {
                        response =
                                access.refusal(
                                                exchange.getRequestHeaders()
                                                        .getFirst("Authorization"))
                                        .map(
                                                refused ->
                                                        Response.text(
                                                                401,
                                                                "text/plain; charset=utf-8",
                                                                refused + "\n"))
                                        .orElse(null);
                        if (response == null) {
                            response = route(table, hint, exchange);
                        }
                    } catch (RuntimeException e) {
                        LOG.warn("The {} failed to answer {}", what, exchange.getRequestURI(), e);
                        response = Response.text(500, "text/plain; charset=utf-8", e + "\n");
                    }
                    answer(exchange, response);
                });
        final String threadName = "rwml-" + what.replace(' ', '-') + "-http";
        final ExecutorService executor =
                Executors.newFixedThreadPool(
                        THREADS,
                        r -> {
                            final Thread t = new Thread(r, threadName);
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.start();
        LOG.info("Serving the {} on {}:{}", what, access, server.getAddress().getPort());
        return new WebServer(what, server, executor);
    }

    private static Response route(
            final Map<String, Handler> routes, final String hint, final HttpExchange exchange)
            throws IOException {
        final String path = exchange.getRequestURI().getPath();
        for (final Map.Entry<String, Handler> route : routes.entrySet()) {
            final String key = route.getKey();
            if (key.equals(path)
                    || (key.endsWith("/") && key.length() > 1 && path.startsWith(key))) {
                return route.getValue().handle(path);
            }
        }
        return Response.notFound(hint);
    }

    private static void answer(final HttpExchange exchange, final Response response)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", response.contentType());
        if (response.status() == 401) {
            // A browser then asks for the key (as the password) and sends it on every request.
            exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"rwml\"");
        }
        // Every answer is a live figure: no browser or proxy may keep one.
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(response.status(), response.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(response.body());
        }
    }

    /** The address and port served on. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** The port served on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The address of {@code path} on this machine. */
    public URI uri(final String path) {
        return URI.create("http://localhost:" + port() + path);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        LOG.debug("Stopped serving the {}", what);
    }
}
