package dev.rwml.scoring.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rwml.runtime.errors.ErrorPolicy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpenAiEmbedderTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpServer server;
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile int status = 200;

    @BeforeEach
    void startStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/embeddings", this::answer);
        server.createContext("/stalled/v1/embeddings", this::stall);
        server.start();
    }

    @AfterEach
    void stopStub() {
        release.countDown();
        server.stop(0);
    }

    /** Answers only once the test is over, so that every request times out. */
    private void stall(final HttpExchange exchange) throws IOException {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        exchange.sendResponseHeaders(503, -1);
        exchange.close();
    }

    private EmbeddingException failureAt(final int httpStatus) {
        status = httpStatus;
        final OpenAiEmbedder embedder =
                new OpenAiEmbedder(baseUrl(), "m", null, Duration.ofSeconds(30));
        return catchThrowableOfType(
                EmbeddingException.class, () -> embedder.embedAll(List.of("a")));
    }

    /** Answers like an OpenAI server, in reverse order, with vector (length, index + 1). */
    private void answer(final HttpExchange exchange) throws IOException {
        final JsonNode request = JSON.readTree(exchange.getRequestBody());
        requests.add(request);
        authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
        final StringBuilder data = new StringBuilder();
        final JsonNode input = request.path("input");
        for (int i = input.size() - 1; i >= 0; i--) {
            if (data.length() > 0) {
                data.append(',');
            }
            data.append("{\"object\":\"embedding\",\"index\":")
                    .append(i)
                    .append(",\"embedding\":[")
                    .append(input.get(i).asText().length())
                    .append(',')
                    .append(i + 1)
                    .append("]}");
        }
        final byte[] body =
                (status == 200
                                ? "{\"object\":\"list\",\"data\":[" + data + "],\"model\":\"m\"}"
                                : "{\"error\":{\"message\":\"model not found\"}}")
                        .getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void shouldEmbedABatchInOneRequestAndOrderVectorsByIndex() {
        final OpenAiEmbedder embedder =
                new OpenAiEmbedder(
                        baseUrl(), "Qwen/Qwen3-Embedding-8B", "k3y", Duration.ofSeconds(30));

        final List<float[]> vectors = embedder.embedAll(List.of("a", "bbb", "cc"));

        assertThat(requests).hasSize(1);
        assertThat(requests.get(0).path("model").asText()).isEqualTo("Qwen/Qwen3-Embedding-8B");
        assertThat(requests.get(0).path("input")).hasSize(3);
        assertThat(authorizations).containsExactly("Bearer k3y");
        assertThat(vectors.get(0)).containsExactly(1f, 1f);
        assertThat(vectors.get(1)).containsExactly(3f, 2f);
        assertThat(vectors.get(2)).containsExactly(2f, 3f);
        assertThat(embedder.modelName()).isEqualTo("Qwen/Qwen3-Embedding-8B");
    }

    @Test
    void shouldAcceptABaseUrlWithOrWithoutV1() {
        assertThat(OpenAiEmbedder.endpointOf("http://h:1/").toString())
                .isEqualTo("http://h:1/v1/embeddings");
        assertThat(OpenAiEmbedder.endpointOf("http://h:1/v1").toString())
                .isEqualTo("http://h:1/v1/embeddings");
        assertThatThrownBy(() -> OpenAiEmbedder.endpointOf("h:1")).hasMessageContaining("http://");
    }

    @Test
    void shouldReportTheServersErrorWithWhatToCheck() {
        status = 404;
        final OpenAiEmbedder embedder =
                new OpenAiEmbedder(baseUrl(), "missing-model", null, Duration.ofSeconds(30));

        assertThatThrownBy(() -> embedder.embedAll(List.of("a")))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining("HTTP 404")
                .hasMessageContaining("model not found")
                .hasMessageContaining("missing-model");
        assertThat(authorizations).containsExactly("null");
    }

    @Test
    void shouldReportAnUnreachableServer() {
        final String url = baseUrl();
        server.stop(0);
        final OpenAiEmbedder embedder = new OpenAiEmbedder(url, "m", null, Duration.ofSeconds(2));

        assertThatThrownBy(() -> embedder.embedAll(List.of("a")))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining("cannot reach embedding server")
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isTrue());
    }

    @Test
    void shouldTreatServerErrorsThrottlingAndRequestTimeoutsAsOutages() {
        for (final int httpStatus : new int[] {500, 502, 503, 504, 429, 408}) {
            final EmbeddingException error = failureAt(httpStatus);

            assertThat(error).hasMessageContaining("HTTP " + httpStatus);
            assertThat(ErrorPolicy.isOutage(error)).as("HTTP %d", httpStatus).isTrue();
        }
    }

    @Test
    void shouldTreatOtherClientErrorsAsPermanentWithWhatToDo() {
        for (final int httpStatus : new int[] {400, 401, 403, 404, 413, 422}) {
            final EmbeddingException error = failureAt(httpStatus);

            assertThat(ErrorPolicy.isOutage(error)).as("HTTP %d", httpStatus).isFalse();
            assertThat(error)
                    .hasMessageContaining("HTTP " + httpStatus)
                    .hasMessageContaining("model not found")
                    .hasMessageContaining("retrying will not help");
        }
    }

    @Test
    void shouldTreatARequestThatTimesOutAsAnOutage() {
        final OpenAiEmbedder embedder =
                new OpenAiEmbedder(baseUrl() + "/stalled", "m", null, Duration.ofMillis(200));

        assertThatThrownBy(() -> embedder.embedAll(List.of("a")))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining("cannot reach embedding server")
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isTrue());
    }

    @Test
    void shouldScoreCosineWithTheRemoteVectors() {
        final OpenAiEmbedder embedder =
                new OpenAiEmbedder(baseUrl(), "m", null, Duration.ofSeconds(30));
        final List<float[]> vectors = embedder.embedAll(List.of("ab", "ab"));
        // (2, 1) and (2, 2): cosine 6 / (sqrt 5 * sqrt 8)
        assertThat(Vectors.cosine(vectors.get(0), vectors.get(1)))
                .isCloseTo(6 / Math.sqrt(40), org.assertj.core.api.Assertions.within(1e-6));
    }
}
