package dev.rwml.ops.cli.status;

import dev.rwml.ops.cli.web.LineChart;
import dev.rwml.ops.cli.web.WebServer;
import dev.rwml.ops.cli.web.WebServer.Response;
import dev.rwml.pipeline.watch.RunStatus;
import dev.rwml.runtime.settings.HttpAccess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live status page of a run: {@code /} is a self-contained page (no external scripts, the
 * machine may be offline) that polls {@code /api/status}, the {@link RunStatus} as JSON, and shows
 * the charts under {@code /chart/}, drawn from the latest status by the same {@link LineChart} as
 * the demo's report. Read-only: it serves figures, it changes nothing.
 */
public final class StatusWebServer implements AutoCloseable {

    /** The JSON endpoint the page polls. */
    public static final String API_PATH = "/api/status";

    /** Where the charts are, {@code <name>.png} below it. */
    public static final String CHART_PATH = "/chart/";

    private static final Logger LOG = LoggerFactory.getLogger(StatusWebServer.class);
    private static final String PAGE_RESOURCE = "status.html";
    private static final String HTML = "text/html; charset=utf-8";
    private static final String JSON = "application/json";

    private final WebServer server;

    private StatusWebServer(final WebServer server) {
        this.server = server;
    }

    /**
     * Serves the page on {@code port} of this machine (0 picks a free port; see {@link #port()})
     * with figures from {@code source}, called once per API request.
     */
    public static StatusWebServer start(final int port, final Supplier<RunStatus> source) {
        return start(HttpAccess.loopback(), port, source);
    }

    /**
     * Serves the page on {@code port} of {@code access}'s address, asking for its key, with figures
     * from {@code source}, called once per API request.
     */
    public static StatusWebServer start(
            final HttpAccess access, final int port, final Supplier<RunStatus> source) {
        final byte[] page = page();
        final StatusCharts charts = new StatusCharts(source);
        final Map<String, Function<StatusCharts, LineChart>> drawn = new LinkedHashMap<>();
        drawn.put("pass-rate.png", StatusCharts::passRate);
        drawn.put("throughput.png", StatusCharts::throughput);
        drawn.put("records.png", StatusCharts::records);
        final Map<String, WebServer.Handler> routes = new LinkedHashMap<>();
        routes.put("/", path -> new Response(200, HTML, page));
        routes.put(API_PATH, path -> api(charts));
        routes.put(
                CHART_PATH,
                path -> {
                    final Function<StatusCharts, LineChart> chart =
                            drawn.get(path.substring(CHART_PATH.length()));
                    return chart == null
                            ? Response.notFound("charts are " + drawn.keySet())
                            : new Response(200, "image/png", chart.apply(charts).png());
                });
        return new StatusWebServer(WebServer.start("status page", access, port, "--port", routes));
    }

    private static Response api(final StatusCharts charts) {
        try {
            return Response.text(200, JSON, StatusReport.json(charts.refresh()));
        } catch (RuntimeException e) {
            LOG.warn("Status not available: {}", e.toString());
            final String message = e.getMessage() == null ? "unknown error" : e.getMessage();
            return Response.text(503, JSON, StatusReport.jsonValue(Map.of("error", message)));
        }
    }

    /** The port the page is served on. */
    public int port() {
        return server.port();
    }

    /** The page's address on this machine. */
    public URI uri() {
        return server.uri("/");
    }

    @Override
    public void close() {
        server.close();
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
}
