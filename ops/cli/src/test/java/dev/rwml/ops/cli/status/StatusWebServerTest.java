package dev.rwml.ops.cli.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class StatusWebServerTest {

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(final URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeSelfContainedPageThatPollsTheJsonEndpoint() throws Exception {
        try (StatusWebServer server = StatusWebServer.start(0, StatusFixtures::sample)) {
            final HttpResponse<String> page = get(server.uri());

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
            assertThat(page.body())
                    .contains("chart-pass")
                    .contains("chart-throughput")
                    .contains("fetch(\"api/status\"")
                    // Offline machines: nothing may be loaded from elsewhere.
                    .doesNotContain("<script src")
                    .doesNotContain("https://");
        }
    }

    @Test
    void shouldServeTheCurrentStatusAsJson() throws Exception {
        try (StatusWebServer server = StatusWebServer.start(0, StatusFixtures::sample)) {
            final HttpResponse<String> api = get(server.uri().resolve(StatusWebServer.API_PATH));

            assertThat(api.statusCode()).isEqualTo(200);
            final JsonNode json = new ObjectMapper().readTree(api.body());
            assertThat(json.get("versions").findValuesAsText("objective"))
                    .containsExactly("init", "grpo");
        }
    }

    @Test
    void shouldAnswerServiceUnavailableWithTheReasonWhenStatusCannotBeRead() throws Exception {
        try (StatusWebServer server =
                StatusWebServer.start(
                        0,
                        () -> {
                            throw new IllegalStateException("cannot list topics on nowhere:9092");
                        })) {
            final HttpResponse<String> api = get(server.uri().resolve(StatusWebServer.API_PATH));

            assertThat(api.statusCode()).isEqualTo(503);
            assertThat(new ObjectMapper().readTree(api.body()).get("error").asText())
                    .isEqualTo("cannot list topics on nowhere:9092");
        }
    }

    @Test
    void shouldDrawTheChartsOfThePageAsPngFromTheLatestStatus() throws Exception {
        try (StatusWebServer server = StatusWebServer.start(0, StatusFixtures::sample)) {
            for (final String chart : List.of("pass-rate.png", "throughput.png", "records.png")) {
                final HttpResponse<byte[]> png =
                        http.send(
                                HttpRequest.newBuilder(
                                                server.uri()
                                                        .resolve(
                                                                StatusWebServer.CHART_PATH + chart))
                                        .build(),
                                HttpResponse.BodyHandlers.ofByteArray());

                assertThat(png.statusCode()).as(chart).isEqualTo(200);
                assertThat(png.headers().firstValue("Content-Type")).hasValue("image/png");
                assertThat(ImageIO.read(new ByteArrayInputStream(png.body())).getWidth())
                        .as(chart)
                        .isPositive();
            }
            assertThat(
                            get(server.uri().resolve(StatusWebServer.CHART_PATH + "kl.png"))
                                    .statusCode())
                    .isEqualTo(404);
        }
    }

    @Test
    void shouldAnswerNotFoundForOtherPaths() throws Exception {
        try (StatusWebServer server = StatusWebServer.start(0, StatusFixtures::sample)) {
            assertThat(get(server.uri().resolve("/favicon.ico")).statusCode()).isEqualTo(404);
        }
    }
}
