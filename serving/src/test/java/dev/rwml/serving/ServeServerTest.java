package dev.rwml.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServeServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = "demo";

    private final HttpClient http = HttpClient.newHttpClient();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ServedModel models = new ServedModel();
    private ServeServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        models.close();
    }

    private ScriptedModel serve(final ServeLimits limits, final Optional<String> key) {
        final ScriptedModel model = new ScriptedModel(3, 256);
        models.offer(model);
        server =
                ServeServer.start(
                        RUN, "127.0.0.1", 0, models, limits, key, registry, () -> "# metrics\n");
        return model;
    }

    private ScriptedModel serve() {
        return serve(ServeLimits.defaults(), Optional.empty());
    }

    @Test
    void shouldSampleAListOfPromptsWithOneSeedInOneCallAndNameTheVersion() throws Exception {
        final ScriptedModel model = serve();

        final HttpResponse<String> response =
                post(
                        "/v1/completions",
                        "{\"model\":\"demo\",\"prompt\":[[7,8,9],[5]],\"n\":2,\"seed\":11,"
                                + "\"max_tokens\":40,\"logprobs\":0,\"return_token_ids\":true}");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue(ServeServer.VERSION_HEADER)).contains("3");
        assertThat(model.calls).hasSize(1);
        assertThat(model.calls.get(0).prompts()).hasSize(2);
        assertThat(model.calls.get(0).seed()).isEqualTo(11L);
        assertThat(model.calls.get(0).settings().groupSize()).isEqualTo(2);
        final JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("model").asText()).isEqualTo("demo-v3");
        final JsonNode choices = body.get("choices");
        assertThat(choices).hasSize(4);
        final JsonNode third = choices.get(2);
        assertThat(third.get("index").asInt()).isEqualTo(2);
        assertThat(third.get("text").asText())
                .isEqualTo(ScriptedModel.completion(new int[] {5}, 11, 1, 0));
        assertThat(third.get("prompt_token_ids").toString()).isEqualTo("[5]");
        assertThat(third.get("finish_reason").asText()).isEqualTo("stop");
        final JsonNode logprobs = choices.get(1).get("logprobs").get("token_logprobs");
        assertThat(logprobs.get(1).floatValue()).isEqualTo(-0.001f * 2 * 2);
        assertThat(third.get("token_ids")).hasSize(third.get("text").asText().length());
    }

    @Test
    void shouldBatchWaitingUnseededRequestsWithTheSameSettingsAndSampleOthersApart()
            throws Exception {
        final ScriptedModel model = serve();
        model.hold();
        final List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        answers.add(postAsync("/v1/completions", "{\"prompt\":\"first\",\"max_tokens\":40}"));
        await().until(() -> model.calls.size() == 1);
        // One at a time, so that they wait in the queue in this order.
        for (final String body :
                List.of(
                        "{\"prompt\":\"b\",\"max_tokens\":40}",
                        "{\"prompt\":[\"c\",\"cc\"],\"max_tokens\":40}",
                        "{\"prompt\":\"d\",\"max_tokens\":40,\"temperature\":0.5}",
                        "{\"prompt\":\"e\",\"max_tokens\":40,\"seed\":1}")) {
            answers.add(postAsync("/v1/completions", body));
            final int waiting = answers.size() - 1;
            await().until(() -> registry.get("rwml.serve.queue").gauge().value() == waiting);
        }
        model.release();

        for (final CompletableFuture<HttpResponse<String>> a : answers) {
            assertThat(a.get().statusCode()).as(a.get().body()).isEqualTo(200);
        }
        assertThat(model.calls).extracting(c -> c.prompts().size()).containsExactly(1, 3, 1, 1);
        assertThat(model.calls.get(2).settings().temperature()).isEqualTo(0.5f);
        assertThat(model.calls.get(3).seed()).isEqualTo(1L);
        final JsonNode second = JSON.readTree(answers.get(2).get().body()).get("choices");
        assertThat(second).hasSize(2);
        assertThat(second.get(1).get("text").asText()).contains("<think>2</think>");
    }

    @Test
    void shouldShedWith503AndRetryAfterWhenTheQueueIsFull() throws Exception {
        final ScriptedModel model =
                serve(ServeLimits.defaults().withQueueCapacity(2), Optional.empty());
        model.hold();
        final List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        answers.add(postAsync("/v1/completions", "{\"prompt\":\"a\",\"seed\":1}"));
        await().until(() -> model.calls.size() == 1);
        answers.add(postAsync("/v1/completions", "{\"prompt\":\"b\",\"seed\":2}"));
        answers.add(postAsync("/v1/completions", "{\"prompt\":\"c\",\"seed\":3}"));
        await().until(() -> registry.get("rwml.serve.queue").gauge().value() == 2);

        final HttpResponse<String> shed = post("/v1/completions", "{\"prompt\":\"d\",\"seed\":4}");
        model.release();

        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.headers().firstValue("Retry-After")).contains("1");
        assertThat(JSON.readTree(shed.body()).get("error").get("type").asText())
                .isEqualTo("server_overloaded");
        for (final CompletableFuture<HttpResponse<String>> a : answers) {
            assertThat(a.get().statusCode()).isEqualTo(200);
        }
        assertThat(registry.get(ServeMetrics.SHED).counter().count()).isEqualTo(1);
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAnswerRequestsOutsideTheLimitsWithOpenAiErrorObjects() throws Exception {
        final ScriptedModel model = serve();
        final ServeLimits limits = ServeLimits.defaults();

        assertError(
                post("/v1/completions", "{\"prompt\":\"a\",\"n\":" + (limits.maxN() + 1) + "}"),
                400,
                "n");
        assertError(
                post(
                        "/v1/completions",
                        "{\"prompt\":\"a\",\"max_tokens\":" + (limits.maxTokens() + 1) + "}"),
                400,
                "max_tokens");
        assertError(
                post("/v1/completions", "{\"prompt\":\"a\",\"max_tokens\":256}"),
                400,
                "max_tokens");
        assertError(post("/v1/completions", "{\"n\":1}"), 400, "prompt");
        assertError(post("/v1/completions", "{\"prompt\":[]}"), 400, null);
        assertError(post("/v1/completions", "{\"prompt\":[999999999]}"), 400, "prompt");
        final HttpResponse<String> outside =
                post("/v1/completions", "{\"prompt\":[[97],[98,70000]]}");
        assertError(outside, 400, "prompt");
        assertThat(outside.body())
                .contains(
                        "token id 70000 of prompt 1 is outside the model's vocabulary of 65536 ids");
        assertError(post("/v1/completions", "{\"prompt\":\"a\""), 400, null);
        assertError(post("/v1/completions", "{\"prompt\":\"a\",\"n\":\"two\"}"), 400, "n");
        assertError(post("/v1/completions", "{\"prompt\":\"a\",\"stream\":true}"), 400, "stream");
        assertError(
                post("/v1/completions", "{\"prompt\":\"a\",\"model\":\"other\"}"), 404, "model");
        assertError(
                post(
                        "/v1/chat/completions",
                        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
                400,
                "messages");
        final String big = "{\"prompt\":\"" + "x".repeat(limits.maxBodyBytes()) + "\"}";
        assertError(post("/v1/completions", big), 413, null);
        assertThat(model.calls).isEmpty();
    }

    @Test
    void shouldRequireTheApiKeyOnTheApiButNotOnHealth() throws Exception {
        serve(ServeLimits.defaults(), Optional.of("s3cret"));
        final String body = "{\"prompt\":\"a\"}";

        assertError(post("/v1/completions", body), 401, null);
        assertError(
                send(request("/v1/models").header("Authorization", "Bearer wrong").GET()),
                401,
                null);
        final HttpResponse<String> models =
                send(request("/v1/models").header("Authorization", "Bearer s3cret").GET());
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(models.body()).get("data"))
                .extracting(n -> n.get("id").asText())
                .containsExactly("demo", "demo-v3");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldPredictTheNextStateOfEachActionWithTheVersionThatAnswered() throws Exception {
        final ScriptedModel model = serve();

        final HttpResponse<String> response =
                post(
                        "/v1/world-model/predict",
                        "{\"task\":\"heat an egg\",\"observation\":\"You see a fridge.\","
                                + "\"actions\":[\"open fridge\",\"go to desk\"],\"n\":2,\"seed\":5}");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        final JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("version").asLong()).isEqualTo(3);
        assertThat(body.get("predictions")).hasSize(2);
        final JsonNode second = body.get("predictions").get(1);
        assertThat(second.get("action").asText()).isEqualTo("go to desk");
        assertThat(second.get("samples").get(1).get("next_state").asText()).isEqualTo("s5p1n1");
        assertThat(model.calls.get(0).prompts().get(0)).isEqualTo("open fridge".chars().toArray());
    }

    @Test
    void shouldAnswerWithANewerVersionOnceOfferedAndCloseTheOldOne() throws Exception {
        final ScriptedModel first = serve();
        final ScriptedModel second = new ScriptedModel(4, 256);

        models.offer(second);
        final HttpResponse<String> response = post("/v1/completions", "{\"prompt\":\"a\"}");

        assertThat(response.headers().firstValue(ServeServer.VERSION_HEADER)).contains("4");
        assertThat(JSON.readTree(response.body()).get("model").asText()).isEqualTo("demo-v4");
        assertThat(first.closed).isTrue();
        assertThat(second.calls).hasSize(1);
    }

    @Test
    void shouldRefuseToListenBeyondThisMachineWithoutAnApiKey() {
        assertThatThrownBy(
                        () ->
                                new ServeConfig(
                                        RUN,
                                        java.util.OptionalLong.empty(),
                                        "0.0.0.0",
                                        0,
                                        Optional.empty(),
                                        ServeLimits.defaults(),
                                        new dev.rwml.worldmodel.ModelRuntime(1, "cpu"),
                                        dev.rwml.runtime.settings.Connection.of(
                                                "localhost:9092", "http://localhost:8081")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--api-key");
    }

    private static void assertError(
            final HttpResponse<String> response, final int status, final String param)
            throws IOException {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        final JsonNode error = JSON.readTree(response.body()).get("error");
        assertThat(error.get("message").asText()).isNotBlank();
        assertThat(error.get("type").asText()).isNotBlank();
        if (param != null) {
            assertThat(error.get("param").asText()).isEqualTo(param);
        }
    }

    private HttpRequest.Builder request(final String path) {
        final URI uri = server.uri(path);
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
    }

    private HttpResponse<String> get(final String path) throws Exception {
        return send(request(path).GET());
    }

    private HttpResponse<String> post(final String path, final String body) throws Exception {
        return send(request(path).POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private CompletableFuture<HttpResponse<String>> postAsync(
            final String path, final String body) {
        return http.sendAsync(
                request(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> send(final HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
