package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.assertExited;
import static dev.rwml.ops.cli.RwmlProcesses.awaitExit;
import static dev.rwml.ops.cli.RwmlProcesses.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code rwml serve} as its own process, as users start it, on a run whose version 0 {@code model
 * init} published on the embedded cluster: one server, with an API key and a small queue, shared by
 * the tests (completions with n > 1, log-probs and token ids; overload; a wrong key; a malformed
 * body; the Python example).
 */
@Tag("system")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServeCommandIT {

    private static final String RUN = "served";
    private static final String KEY = "it-key";
    private static final int QUEUE = 4;
    private static final Pattern ADDRESS = Pattern.compile("at (http://\\S+)/v1");
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension static final RwmlProcesses RWML = new RwmlProcesses("serve");

    private final HttpClient http = HttpClient.newHttpClient();
    private static final String REQUEST_DEADLINE_PROPERTY = "sun.net.httpserver.maxReqTime";
    private static final int REQUEST_DEADLINE_SECONDS = 3;

    private Child serve;
    private URI base;

    /**
     * Starts a cluster, publishes a tiny version 0 and starts {@code rwml serve} on a free port.
     */
    @BeforeAll
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void serveVersionZero() throws Exception {
        RWML.up("--run " + RUN);
        RWML.runToEnd("env", "env run --env alfworld --agents 1 --episodes 3 --seed 1");
        RWML.runToEnd("model-init", "model init --run " + RUN + " --size tiny --steps 5");
        // A short request deadline, so that cutting slow clients is seen in seconds (the default
        // is HttpAccess.REQUEST_DEADLINE).
        serve =
                RWML.startWithJavaOptions(
                        "-D" + REQUEST_DEADLINE_PROPERTY + "=" + REQUEST_DEADLINE_SECONDS,
                        "serve",
                        "serve --run " + RUN + " --port 0 --api-key " + KEY + " --queue " + QUEUE);
        await("rwml serve prints its address")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> running(serve) && address().isPresent());
        base = URI.create(address().orElseThrow());
        await("rwml serve loads version 0")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> get("/health").statusCode() == 200);
    }

    @AfterAll
    void stopWithSigterm() throws Exception {
        if (serve != null) {
            serve.process().destroy();
            assertExited(awaitExit(serve, Duration.ofSeconds(30)), 0);
        }
    }

    @Test
    void shouldSampleNCompletionsWithLogprobsAndTokenIdsReproduciblyForASeed() throws Exception {
        final String body =
                "{\"model\":\""
                        + RUN
                        + "\",\"prompt\":[\"Task: heat an egg.\",\"You see a fridge 1.\"],"
                        + "\"n\":3,\"max_tokens\":12,\"seed\":21,\"logprobs\":0,"
                        + "\"return_token_ids\":true}";

        final HttpResponse<String> first = post("/v1/completions", body, KEY);
        final HttpResponse<String> again = post("/v1/completions", body, KEY);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("x-rwml-model-version")).contains("0");
        final JsonNode answer = JSON.readTree(first.body());
        assertThat(answer.get("model").asText()).isEqualTo(RUN + "-v0");
        assertThat(answer.get("choices")).hasSize(6);
        for (final JsonNode choice : answer.get("choices")) {
            final JsonNode ids = choice.get("token_ids");
            final JsonNode logprobs = choice.get("logprobs").get("token_logprobs");
            assertThat(ids.size()).isBetween(1, 12);
            assertThat(logprobs.size()).isEqualTo(ids.size());
            logprobs.forEach(lp -> assertThat(lp.asDouble()).isLessThanOrEqualTo(0.0));
            assertThat(choice.get("prompt_token_ids").size()).isPositive();
            assertThat(choice.get("finish_reason").asText()).isIn("stop", "length");
        }
        assertThat(JSON.readTree(again.body()).get("choices"))
                .as("the same seed and prompts give the same samples")
                .isEqualTo(answer.get("choices"));
        final JsonNode tokens =
                JSON.readTree(post("/tokenize", "{\"prompt\":\"Task: heat an egg.\"}", KEY).body());
        assertThat(tokens.get("tokens"))
                .isEqualTo(answer.get("choices").get(0).get("prompt_token_ids"));
    }

    @Test
    void shouldShedOverloadWith503sOnlyAndStayHealthy() throws Exception {
        final List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 2 * QUEUE + 2; i++) {
            answers.add(
                    http.sendAsync(
                            request("/v1/completions", KEY)
                                    .POST(
                                            HttpRequest.BodyPublishers.ofString(
                                                    "{\"prompt\":\"Task: find a mug.\",\"n\":4,"
                                                            + "\"max_tokens\":48,\"seed\":"
                                                            + i
                                                            + "}"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString()));
        }
        final Map<Integer, Integer> statuses = new HashMap<>();
        for (final CompletableFuture<HttpResponse<String>> a : answers) {
            final HttpResponse<String> response = a.get(2, TimeUnit.MINUTES);
            statuses.merge(response.statusCode(), 1, Integer::sum);
            if (response.statusCode() == 503) {
                assertThat(response.headers().firstValue("Retry-After")).isPresent();
            }
        }

        assertThat(statuses.keySet()).as("statuses %s", statuses).isSubsetOf(200, 503);
        assertThat(statuses).containsKey(200);
        assertThat(running(serve)).as(serve.tails()).isTrue();
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseAWrongApiKeyWith401() throws Exception {
        final HttpResponse<String> response =
                post("/v1/completions", "{\"prompt\":\"Task: x\"}", "not-the-key");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(JSON.readTree(response.body()).get("error").get("message").asText())
                .isNotBlank();
    }

    @Test
    void shouldAnswerAMalformedBodyWith400AndAnErrorObject() throws Exception {
        final HttpResponse<String> response = post("/v1/completions", "{\"prompt\": [1, 2,", KEY);

        assertThat(response.statusCode()).isEqualTo(400);
        final JsonNode error = JSON.readTree(response.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("message").asText()).contains("JSON");
    }

    @Test
    void shouldAnswerATokenIdOutsideTheVocabularyWith400AndStayHealthy() throws Exception {
        final HttpResponse<String> response =
                post("/v1/completions", "{\"prompt\": [999999999], \"max_tokens\": 4}", KEY);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        final JsonNode error = JSON.readTree(response.body()).get("error");
        assertThat(error.get("param").asText()).isEqualTo("prompt");
        assertThat(error.get("message").asText())
                .startsWith("token id 999999999 of prompt 0 is outside the model's vocabulary of ");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldCutClientsThatSendAByteASecondAndKeepAnsweringTheOthers() throws Exception {
        final int slowClients = 2 * QUEUE + 8 + 4; // more than the server's handler threads
        final List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < slowClients; i++) {
                final Socket socket = new Socket(base.getHost(), base.getPort());
                socket.getOutputStream()
                        .write(
                                ("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                                                + "\r\n{\"prompt\":")
                                        .getBytes(StandardCharsets.US_ASCII));
                slow.add(socket);
            }
            final long started = System.nanoTime();
            final List<Socket> open = new ArrayList<>(slow);
            while (!open.isEmpty()) {
                assertThat(Duration.ofNanos(System.nanoTime() - started))
                        .as("%d slow clients still connected", open.size())
                        .isLessThan(Duration.ofSeconds(REQUEST_DEADLINE_SECONDS + 20));
                open.removeIf(ServeCommandIT::cut);
                Thread.sleep(1_000);
            }
            assertThat(get("/health").statusCode())
                    .as("a client after the slow ones were cut")
                    .isEqualTo(200);
        } finally {
            for (final Socket socket : slow) {
                socket.close();
            }
        }
    }

    /**
     * Sends one more byte: false while the server still takes them, true once it has cut the
     * connection (the byte after its close is refused).
     */
    private static boolean cut(final Socket socket) {
        try {
            socket.getOutputStream().write(' ');
            socket.getOutputStream().flush();
            return false;
        } catch (final IOException e) {
            return true;
        }
    }

    @Test
    void shouldAnswerThePythonExampleWithANextStatePerAction() throws Exception {
        Assumptions.assumeTrue(python3().isPresent(), "python3 is not installed");
        final Path script = RWML.work().resolve("../../../../examples/world_model_client.py");
        final Process python =
                new ProcessBuilder(
                                python3().orElseThrow(),
                                script.normalize().toString(),
                                "--url",
                                base.toString(),
                                "--api-key",
                                KEY)
                        .redirectErrorStream(true)
                        .start();
        final String out = new String(python.getInputStream().readAllBytes());
        assertThat(python.waitFor(2, TimeUnit.MINUTES)).isTrue();

        assertThat(python.exitValue()).as(out).isZero();
        assertThat(out.lines().filter(l -> l.contains(" -> "))).hasSize(3);
        assertThat(out).contains("answered by " + RUN + "-v0 (version 0)");
    }

    private static java.util.Optional<String> python3() {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            final Path candidate = Path.of(dir, "python3");
            if (Files.isExecutable(candidate)) {
                return java.util.Optional.of(candidate.toString());
            }
        }
        return java.util.Optional.empty();
    }

    private java.util.Optional<String> address() throws Exception {
        final Matcher m = ADDRESS.matcher(Files.readString(serve.out()));
        return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }

    private HttpRequest.Builder request(final String path, final String key) {
        final HttpRequest.Builder b =
                HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(2));
        return key == null ? b : b.header("Authorization", "Bearer " + key);
    }

    private HttpResponse<String> get(final String path) throws Exception {
        return http.send(request(path, null).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(final String path, final String body, final String key)
            throws Exception {
        return http.send(
                request(path, key).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
