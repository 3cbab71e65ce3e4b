package dev.rwml.serving;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rwml.runtime.settings.HttpAccess;
import dev.rwml.worldmodel.serve.openai.ChatCompletionRequest;
import dev.rwml.worldmodel.serve.openai.CompletionRequest;
import dev.rwml.worldmodel.serve.openai.LoraAdapterRequest;
import dev.rwml.worldmodel.serve.openai.TokenizeRequest;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of {@code rwml serve}, on the JDK's HTTP server: routes, the API key, body limits,
 * JSON in and out, OpenAI error objects, the {@value #VERSION_HEADER} header on every model answer
 * and {@code Retry-After} on every 503. Each request holds a handler thread while the model thread
 * answers it; there are enough of them for twice the queue, so a full queue is answered 503 at once
 * rather than left waiting for a thread.
 */
public final class ServeServer implements AutoCloseable {

    /** The response header naming the model version that answered. */
    public static final String VERSION_HEADER = "x-rwml-model-version";

    private static final Logger LOG = LoggerFactory.getLogger(ServeServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_TYPE = "application/json";
    private static final long DRAIN_BYTES = 64L << 20;

    /** One answer: status, content type, body, and the version that answered if a model did. */
    private record Reply(int status, String contentType, byte[] body, OptionalLong version) {
        static Reply json(final int status, final Object value, final OptionalLong version) {
            try {
                return new Reply(status, JSON_TYPE, JSON.writeValueAsBytes(value), version);
            } catch (final JsonProcessingException e) {
                throw new IllegalStateException("cannot write an answer as JSON", e);
            }
        }

        static Reply text(final int status, final String contentType, final String body) {
            return new Reply(
                    status,
                    contentType,
                    body.getBytes(StandardCharsets.UTF_8),
                    OptionalLong.empty());
        }
    }

    private final HttpServer server;
    private final ExecutorService handlers;
    private final ModelWorker worker;
    private final ServeApi api;
    private final ServeLimits limits;
    private final ServeMetrics metrics;
    private final HttpAccess access;
    private final Supplier<String> scrape;

    private ServeServer(
            final HttpServer server,
            final ExecutorService handlers,
            final ModelWorker worker,
            final ServeApi api,
            final ServeLimits limits,
            final ServeMetrics metrics,
            final HttpAccess access,
            final Supplier<String> scrape) {
        this.server = server;
        this.handlers = handlers;
        this.worker = worker;
        this.api = api;
        this.limits = limits;
        this.metrics = metrics;
        this.access = access;
        this.scrape = scrape;
    }

    /**
     * Serves the versions {@code models} is offered on {@code host:port} (port 0 picks a free one)
     * until closed; the model thread starts here.
     *
     * @param run the run served, the name requests use
     * @param apiKey the key requests to {@code /v1/*} and {@code /tokenize} must carry as {@code
     *     Authorization: Bearer <key>}; empty: none needed
     * @param registry where the meters go
     * @param scrape the Prometheus text of the meters, served at {@code /metrics}
     */
    static ServeServer start(
            final String run,
            final String host,
            final int port,
            final ServedModel models,
            final ServeLimits limits,
            final Optional<String> apiKey,
            final MeterRegistry registry,
            final Supplier<String> scrape) {
        final HttpAccess access = new HttpAccess(host, apiKey);
        final HttpServer server;
        try {
            server = access.listen(port);
        } catch (final IOException e) {
            throw new UncheckedIOException(
                    "cannot serve on "
                            + host
                            + ":"
                            + port
                            + " ("
                            + e.getMessage()
                            + "); choose another with --port or --host",
                    e);
        }
        final ServeMetrics metrics = new ServeMetrics(registry, run, models::version);
        final ModelWorker worker = new ModelWorker(run, models, limits, metrics);
        metrics.watchQueue(worker::queued);
        final ExecutorService handlers =
                Executors.newFixedThreadPool(
                        2 * limits.queueCapacity() + 8,
                        r -> {
                            final Thread t = new Thread(r, "rwml-serve-http");
                            t.setDaemon(true);
                            return t;
                        });
        final ServeServer serve =
                new ServeServer(
                        server,
                        handlers,
                        worker,
                        new ServeApi(run, models, worker, limits),
                        limits,
                        metrics,
                        access,
                        scrape);
        server.createContext("/", serve::handle);
        server.setExecutor(handlers);
        server.start();
        LOG.info(
                "Serving run {} at {}{}",
                run,
                serve.uri(""),
                apiKey.isPresent() ? " (API key required)" : "");
        return serve;
    }

    /** The port served on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The address of {@code path} on this server. */
    public URI uri(final String path) {
        final InetSocketAddress address = server.getAddress();
        final String host = address.getAddress().getHostAddress();
        return URI.create(
                "http://"
                        + (host.contains(":") ? "[" + host + "]" : host)
                        + ":"
                        + address.getPort()
                        + path);
    }

    private void handle(final HttpExchange exchange) throws IOException {
        final long start = System.nanoTime();
        final String path = exchange.getRequestURI().getPath();
        Reply reply;
        try {
            reply = route(exchange, path);
        } catch (final ApiException e) {
            reply = Reply.json(e.status(), e.body(), OptionalLong.empty());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            reply = error(503, "server_stopping", "the server is stopping", null);
        } catch (final RuntimeException e) {
            LOG.warn("Failed to answer {} {}", exchange.getRequestMethod(), path, e);
            reply = error(500, "server_error", e.toString(), null);
        }
        try {
            send(exchange, reply);
        } finally {
            metrics.answered(
                    endpoint(path), reply.status(), Duration.ofNanos(System.nanoTime() - start));
        }
    }

    private Reply route(final HttpExchange exchange, final String path)
            throws IOException, InterruptedException {
        switch (path) {
            case "/health" -> {
                method(exchange, "GET");
                final Map<String, Object> health = api.health();
                return Reply.json(
                        "ok".equals(health.get("status")) ? 200 : 503,
                        health,
                        OptionalLong.empty());
            }
            case "/metrics" -> {
                method(exchange, "GET");
                return Reply.text(200, "text/plain; version=0.0.4; charset=utf-8", scrape.get());
            }
            default -> {
                // everything else is the API, behind the key
            }
        }
        authorize(exchange);
        switch (path) {
            case "/v1/models" -> {
                method(exchange, "GET");
                return Reply.json(200, api.models(), OptionalLong.empty());
            }
            case "/v1/completions" -> {
                final Answered<?> a = api.complete(body(exchange, CompletionRequest.class));
                return Reply.json(200, a.value(), OptionalLong.of(a.version()));
            }
            case "/v1/chat/completions" -> {
                final Answered<?> a = api.chat(body(exchange, ChatCompletionRequest.class));
                return Reply.json(200, a.value(), OptionalLong.of(a.version()));
            }
            case "/tokenize" -> {
                final Answered<?> a = api.tokenize(body(exchange, TokenizeRequest.class));
                return Reply.json(200, a.value(), OptionalLong.of(a.version()));
            }
            case "/v1/world-model/predict" -> {
                final Answered<?> a = api.predict(body(exchange, WorldModelRequest.class));
                return Reply.json(200, a.value(), OptionalLong.of(a.version()));
            }
            case "/v1/load_lora_adapter" -> {
                return Reply.text(
                        200,
                        "text/plain; charset=utf-8",
                        api.loadAdapter(body(exchange, LoraAdapterRequest.class)));
            }
            case "/v1/unload_lora_adapter" -> {
                return Reply.text(
                        200,
                        "text/plain; charset=utf-8",
                        api.unloadAdapter(body(exchange, LoraAdapterRequest.class)));
            }
            default ->
                    throw new ApiException(
                            404,
                            "NotFoundError",
                            "no endpoint "
                                    + path
                                    + "; try /v1/models, /v1/completions, /v1/chat/completions,"
                                    + " /tokenize, /v1/world-model/predict, /health or /metrics",
                            null);
        }
    }

    private void authorize(final HttpExchange exchange) {
        access.refusal(exchange.getRequestHeaders().getFirst("Authorization"))
                .ifPresent(
                        refused -> {
                            throw new ApiException(401, "authentication_error", refused, null);
                        });
    }

    private static void method(final HttpExchange exchange, final String method) {
        if (!exchange.getRequestMethod().equals(method)) {
            throw new ApiException(
                    405,
                    "invalid_request_error",
                    exchange.getRequestURI().getPath() + " answers " + method + " only",
                    null);
        }
    }

    private <T> T body(final HttpExchange exchange, final Class<T> type) throws IOException {
        method(exchange, "POST");
        final String length = exchange.getRequestHeaders().getFirst("Content-Length");
        final byte[] bytes;
        try (InputStream in = exchange.getRequestBody()) {
            if (length != null && parseLength(length) > limits.maxBodyBytes()) {
                throw tooLarge(in);
            }
            bytes = in.readNBytes(limits.maxBodyBytes() + 1);
            if (bytes.length > limits.maxBodyBytes()) {
                throw tooLarge(in);
            }
        }
        try {
            final T value = JSON.readValue(bytes, type);
            if (value == null) {
                throw ApiException.badRequest("the body must be a JSON object", null);
            }
            return value;
        } catch (final ValueInstantiationException e) {
            throw ApiException.badRequest(rootMessage(e), fieldOf(e));
        } catch (final MismatchedInputException e) {
            throw ApiException.badRequest(
                    "a field has the wrong type: " + e.getOriginalMessage(), fieldOf(e));
        } catch (final JsonProcessingException e) {
            throw ApiException.badRequest(
                    "the body is not valid JSON: " + e.getOriginalMessage(), null);
        }
    }

    private static long parseLength(final String length) {
        try {
            return Long.parseLong(length.trim());
        } catch (final NumberFormatException e) {
            throw ApiException.badRequest("Content-Length is not a number: " + length, null);
        }
    }

    /**
     * The 413 of a body over the limit; the rest of the body is read and dropped (up to {@link
     * #DRAIN_BYTES}) so that the client, still sending, reads the answer instead of a reset.
     */
    private ApiException tooLarge(final InputStream in) throws IOException {
        final byte[] buffer = new byte[64 * 1024];
        long drained = 0;
        int n;
        while (drained < DRAIN_BYTES && (n = in.read(buffer)) > 0) {
            drained += n;
        }
        return new ApiException(
                413,
                "invalid_request_error",
                "the body is larger than the server's limit of " + limits.maxBodyBytes() + " bytes",
                null);
    }

    private static String rootMessage(final Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static String fieldOf(final JsonProcessingException e) {
        if (e instanceof MismatchedInputException m && !m.getPath().isEmpty()) {
            return m.getPath().get(0).getFieldName();
        }
        return null;
    }

    private Reply error(
            final int status, final String type, final String message, final String param) {
        return Reply.json(
                status,
                new ApiException(status, type, message, param).body(),
                OptionalLong.empty());
    }

    private void send(final HttpExchange exchange, final Reply reply) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", reply.contentType());
        if (reply.version().isPresent()) {
            exchange.getResponseHeaders()
                    .set(VERSION_HEADER, Long.toString(reply.version().getAsLong()));
        }
        if (reply.status() == 503) {
            exchange.getResponseHeaders()
                    .set(
                            "Retry-After",
                            Long.toString(Math.max(1, limits.retryAfter().toSeconds())));
        }
        exchange.sendResponseHeaders(reply.status(), reply.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(reply.body());
        }
    }

    /** The endpoint a path is counted under; unknown paths share one tag. */
    private static String endpoint(final String path) {
        return switch (path) {
            case "/health",
                    "/metrics",
                    "/v1/models",
                    "/v1/completions",
                    "/v1/chat/completions",
                    "/tokenize",
                    "/v1/world-model/predict",
                    "/v1/load_lora_adapter",
                    "/v1/unload_lora_adapter" ->
                    path;
            default -> "other";
        };
    }

    /** Stops accepting requests, answering those in progress, and frees the handler threads. */
    @Override
    public void close() {
        worker.close();
        server.stop(1);
        handlers.shutdownNow();
    }
}
