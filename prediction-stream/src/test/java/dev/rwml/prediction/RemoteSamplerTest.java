package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.runtime.errors.UnfitSettingsException;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import dev.rwml.worldmodel.serve.openai.CompletionRequest;
import dev.rwml.worldmodel.serve.openai.CompletionResponse;
import dev.rwml.worldmodel.serve.openai.ErrorResponse;
import dev.rwml.worldmodel.serve.openai.LoraAdapterRequest;
import dev.rwml.worldmodel.serve.openai.TokenizeRequest;
import dev.rwml.worldmodel.serve.openai.TokenizeResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The remote sampler against vLLM's documented JSON (the contract fixtures in {@code contract/}),
 * replayed by an in-test HTTP server: what it sends, the samples it builds and how it treats each
 * kind of failure.
 */
class RemoteSamplerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SamplingSettings SAMPLING = new SamplingSettings(2, 1.0f, 0.95f, 6);
    private static final long SEED = -7046029254386353131L;
    private static final List<int[]> PROMPTS =
            List.of(new int[] {12, 57, 103, 9}, new int[] {12, 57, 88, 240, 9});

    private final Map<String, Function<String, Answer>> routes = new ConcurrentHashMap<>();
    private final Map<String, List<String>> received = new ConcurrentHashMap<>();
    private HttpServer server;
    private CheckpointModelLoader loader;
    private WorldModelPredictor local;

    private record Answer(int status, String body) {}

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
        loader = new CheckpointModelLoader(PromptFormat.standard());
        local = (WorldModelPredictor) loader.fromCheckpoint(3, TinyWorldModels.checkpoint(3, 7));
    }

    @AfterEach
    void stop() {
        server.stop(0);
        local.close();
        loader.close();
    }

    private void handle(final HttpExchange exchange) throws IOException {
        final String path = exchange.getRequestURI().getPath();
        final String body =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.computeIfAbsent(path, p -> new ArrayList<>()).add(body);
        final Function<String, Answer> route = routes.get(path);
        final Answer answer = route == null ? new Answer(404, "{}") : route.apply(body);
        final byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static String fixture(final String name) {
        return fixture("vllm", name);
    }

    private static String fixture(final String server, final String name) {
        try (InputStream in =
                RemoteSamplerTest.class.getResourceAsStream("/contract/" + server + "/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private RemoteSamplerClient client() {
        return new RemoteSamplerClient(
                new RemoteSamplerSettings(
                        URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                        Optional.of("k"),
                        "alfworld",
                        Optional.empty(),
                        Duration.ofSeconds(10)));
    }

    private RemotePredictionModel adapterModel() {
        return new RemotePredictionModel(
                local,
                client(),
                "alfworld",
                "alfworld-v3",
                RemotePredictionModel.Served.ADAPTER,
                () -> {});
    }

    @Test
    void shouldParseTheContractFixturesWithTheSharedRecords() throws Exception {
        final CompletionRequest request =
                JSON.readValue(fixture("completions-request.json"), CompletionRequest.class);
        assertThat(request.prompt().tokenArrays()).hasSize(2);
        assertThat(request.n()).isEqualTo(2);
        assertThat(request.logprobs()).isEqualTo(1);
        assertThat(request.returnTokenIds()).isTrue();
        assertThat(request.seed()).isEqualTo(SEED);
        final CompletionResponse response =
                JSON.readValue(fixture("completions-response.json"), CompletionResponse.class);
        assertThat(response.choices()).hasSize(4);
        for (final CompletionResponse.Choice choice : response.choices()) {
            assertThat(choice.tokenIds()).isNotEmpty();
            assertThat(choice.logprobs().tokenLogprobs()).hasSameSizeAs(choice.tokenIds());
            assertThat(choice.finishReason())
                    .isIn(CompletionResponse.STOP, CompletionResponse.LENGTH);
        }
        assertThat(
                        JSON.readValue(fixture("tokenize-response.json"), TokenizeResponse.class)
                                .tokens())
                .hasSize(9);
        assertThat(JSON.readValue(fixture("tokenize-request.json"), TokenizeRequest.class).prompt())
                .isEqualTo(RemotePredictionModel.TOKENIZER_PROBE);
        final LoraAdapterRequest load =
                JSON.readValue(fixture("load-lora-adapter-request.json"), LoraAdapterRequest.class);
        assertThat(load.loraName()).isEqualTo("alfworld-v3");
        assertThat(load.loraPath()).endsWith("/alfworld-v3");
        assertThat(
                        JSON.readValue(fixture("error-response.json"), ErrorResponse.class)
                                .error()
                                .message())
                .contains("maximum context length");
    }

    @Test
    void shouldSendTheBatchAsOneCompletionRequestAndBuildSamplesAsTheGenerator() throws Exception {
        routes.put(
                "/v1/completions", body -> new Answer(200, fixture("completions-response.json")));

        final List<List<Sample>> groups = adapterModel().sample(PROMPTS, SAMPLING, SEED);

        assertThat(received.get("/v1/completions")).hasSize(1);
        assertThat(JSON.readTree(received.get("/v1/completions").get(0)))
                .isEqualTo(JSON.readTree(fixture("completions-request.json")));
        final JsonNode choices =
                JSON.readTree(fixture("completions-response.json")).path("choices");
        assertThat(groups).hasSize(2);
        assertThat(groups.get(0)).hasSize(2);
        final Sample.StopReason[] reasons = {
            Sample.StopReason.NEXT_STATE_CLOSED,
            Sample.StopReason.END_OF_TEXT,
            Sample.StopReason.LENGTH,
            Sample.StopReason.NEXT_STATE_CLOSED
        };
        for (int i = 0; i < 4; i++) {
            final Sample sample = groups.get(i / 2).get(i % 2);
            final JsonNode choice = choices.get(i);
            final int[] ids = new int[choice.path("token_ids").size()];
            final float[] logProbs = new float[ids.length];
            for (int t = 0; t < ids.length; t++) {
                ids[t] = choice.path("token_ids").get(t).asInt();
                logProbs[t] =
                        (float) choice.path("logprobs").path("token_logprobs").get(t).asDouble();
            }
            assertThat(sample.tokenIds()).containsExactly(ids);
            assertThat(sample.logProbs()).containsExactly(logProbs);
            assertThat(sample.stopReason()).isEqualTo(reasons[i]);
            final Sample expected = Sample.completed(ids, logProbs, reasons[i], local::decode);
            assertThat(sample.text()).isEqualTo(expected.text());
            assertThat(sample.prediction()).isEqualTo(expected.prediction());
        }
        // the end-of-text id is kept in the ids, not in the text
        assertThat(groups.get(0).get(1).text()).isEqualTo(local.decode(new int[] {2, 3}));
        assertThat(groups.get(0).get(0).prediction()).isPresent();
    }

    @Test
    void shouldStopTheStageOnACompletionWithoutTokenIdsAsSglangAnswers() {
        routes.put(
                "/v1/completions",
                body -> new Answer(200, fixture("sglang", "completions-response.json")));

        assertThatThrownBy(() -> adapterModel().sample(PROMPTS, SAMPLING, SEED))
                .isInstanceOf(UnfitSettingsException.class)
                .hasMessageContaining("without token ids")
                .hasMessageContaining("return_token_ids");
    }

    @Test
    void shouldRetryAServerErrorAndNeverDeadLetterIt() {
        routes.put("/v1/completions", body -> new Answer(503, fixture("error-response.json")));

        assertThatThrownBy(() -> adapterModel().sample(PROMPTS, SAMPLING, SEED))
                .isInstanceOfSatisfying(
                        SamplerException.class,
                        e -> {
                            assertThat(ErrorPolicy.classify(e)).isEqualTo(ErrorPolicy.Action.RETRY);
                            assertThat(e.getMessage())
                                    .contains("HTTP 503", "maximum context length");
                        });
    }

    @Test
    void shouldRetryAnUnreachableServer() {
        server.stop(0);

        assertThatThrownBy(() -> adapterModel().sample(PROMPTS, SAMPLING, SEED))
                .satisfies(
                        e ->
                                assertThat(ErrorPolicy.classify(e))
                                        .isEqualTo(ErrorPolicy.Action.RETRY));
    }

    @Test
    void shouldDeadLetterAPromptTheServerRefusesWithItsReason() {
        routes.put("/v1/completions", body -> new Answer(400, fixture("error-response.json")));

        assertThatThrownBy(() -> adapterModel().sample(PROMPTS, SAMPLING, SEED))
                .isInstanceOfSatisfying(
                        SamplerException.class,
                        e -> {
                            assertThat(ErrorPolicy.classify(e))
                                    .isEqualTo(ErrorPolicy.Action.DEAD_LETTER);
                            assertThat(e.deadLetterReason()).contains("SAMPLER_HTTP_400");
                            assertThat(e.getMessage()).contains("maximum context length");
                        });
        routes.put("/v1/completions", body -> new Answer(404, fixture("error-response-flat.json")));
        assertThatThrownBy(() -> adapterModel().sample(PROMPTS, SAMPLING, SEED))
                .hasMessageContaining("does not exist")
                .hasMessageContaining("VLLM_ALLOW_RUNTIME_LORA_UPDATING");
    }

    @Test
    void shouldStopTheStageWhenTheServerRefusesTheApiKey() {
        routes.put(
                "/v1/completions",
                body -> new Answer(401, "{\"error\":{\"message\":\"Unauthorized\"}}"));

        assertThatThrownBy(() -> adapterModel().sample(PROMPTS, SAMPLING, SEED))
                .satisfies(
                        e -> assertThat(ErrorPolicy.classify(e)).isEqualTo(ErrorPolicy.Action.FAIL))
                .hasMessageContaining("sampler.api.key.env");
        assertThat(received.get("/v1/completions")).hasSize(1);
    }

    @Test
    void shouldRefuseToStartWhenTheServerTokenizesDifferently() {
        routes.put("/tokenize", body -> new Answer(200, fixture("tokenize-response.json")));

        assertThatThrownBy(() -> adapterModel().requireServerFits())
                .isInstanceOf(UnfitSettingsException.class)
                .hasMessageContaining("tokenizes differently")
                .hasMessageContaining("[61, 62, 63, 64, 65, 66, 7, 201, 202]");
    }

    @Test
    void shouldStartWhenTheServerTokenizesAlikeAndStampOnlyTheVersionThatAnswered()
            throws Exception {
        routes.put("/tokenize", body -> new Answer(200, tokenizeAnswer()));
        routes.put("/v1/completions", body -> new Answer(200, answeredBy("alfworld-v3")));
        final RemotePredictionModel run =
                new RemotePredictionModel(
                        local,
                        client(),
                        "alfworld",
                        "alfworld",
                        RemotePredictionModel.Served.RUN,
                        () -> {});

        run.requireServerFits();
        assertThat(run.sample(PROMPTS, SAMPLING, SEED)).hasSize(2);
        assertThat(JSON.readTree(received.get("/tokenize").get(0)).path("model").asText())
                .isEqualTo("alfworld");

        routes.put("/v1/completions", body -> new Answer(200, answeredBy("alfworld-v4")));
        assertThatThrownBy(() -> run.sample(PROMPTS, SAMPLING, SEED))
                .hasMessageContaining("while the stage holds version 3")
                .satisfies(
                        e ->
                                assertThat(ErrorPolicy.classify(e))
                                        .isEqualTo(ErrorPolicy.Action.RETRY));
        routes.put("/v1/completions", body -> new Answer(200, answeredBy("Qwen/Qwen3-0.6B")));
        assertThatThrownBy(run::requireServerFits)
                .isInstanceOf(UnfitSettingsException.class)
                .hasMessageContaining("start the run with LoRA")
                .hasMessageContaining("sampler=local");
    }

    private String tokenizeAnswer() {
        final int[] ids = local.tokenizer().encode(RemotePredictionModel.TOKENIZER_PROBE);
        final ObjectNode answer = (ObjectNode) readTree(fixture("tokenize-response.json"));
        final var tokens = answer.putArray("tokens");
        Arrays.stream(ids).forEach(tokens::add);
        answer.put("count", ids.length);
        return answer.toString();
    }

    private static String answeredBy(final String model) {
        final ObjectNode answer = (ObjectNode) readTree(fixture("completions-response.json"));
        answer.put("model", model);
        return answer.toString();
    }

    private static JsonNode readTree(final String json) {
        try {
            return JSON.readTree(json);
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
