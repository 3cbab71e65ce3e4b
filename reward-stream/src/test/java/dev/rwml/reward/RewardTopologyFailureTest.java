package dev.rwml.reward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rwml.events.DeadLetter;
import dev.rwml.runtime.Meters;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.embed.OpenAiEmbedder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.test.TestRecord;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reward topology when a dependency fails: an unreachable registry or embedding server stops
 * the thread so the records are retried, while an input the embedding server refuses is
 * dead-lettered and the stage keeps rewarding.
 */
class RewardTopologyFailureTest extends RewardTopologyHarness {

    private static final String SCOPE = "reward-topology-failure-test";
    private static final String REGISTRY = "mock://" + SCOPE;
    private static final String REFUSED = "REFUSED-BY-THE-EMBEDDING-SERVER";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RewardConfig config = RewardConfig.defaults("r1", "unused:9092", REGISTRY);
    private final Map<String, Object> registry = RewardApp.registryConfig(config);

    private HttpServer embeddingServer;
    private volatile int statusForAll = 200;
    private volatile int statusForRefused = 400;

    @BeforeEach
    void startEmbeddingServer() throws IOException {
        embeddingServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        embeddingServer.createContext("/v1/embeddings", this::embed);
        embeddingServer.start();
    }

    @AfterEach
    void close() {
        embeddingServer.stop(0);
        MockSchemaRegistry.dropScope(SCOPE);
    }

    /** Embeds each text as (length, 1), or answers an error status. */
    private void embed(final HttpExchange exchange) throws IOException {
        final JsonNode input = JSON.readTree(exchange.getRequestBody()).path("input");
        int status = statusForAll;
        final StringBuilder data = new StringBuilder();
        for (int i = 0; i < input.size(); i++) {
            if (input.get(i).asText().contains(REFUSED)) {
                status = statusForRefused;
            }
            data.append(i == 0 ? "" : ",")
                    .append("{\"index\":")
                    .append(i)
                    .append(",\"embedding\":[")
                    .append(input.get(i).asText().length())
                    .append(",1]}");
        }
        final byte[] body =
                (status == 200
                                ? "{\"data\":[" + data + "]}"
                                : "{\"error\":{\"message\":\"refused with " + status + "\"}}")
                        .getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    /** Starts the topology, its serdes on {@code topologyRegistry}, its handlers on the mock. */
    private void start(final Map<String, ?> topologyRegistry) {
        final CachingEmbedder embedder =
                new CachingEmbedder(
                        new OpenAiEmbedder(
                                "http://127.0.0.1:" + embeddingServer.getAddress().getPort(),
                                "embedding-server",
                                null,
                                Duration.ofSeconds(5)),
                        0);
        startTopology(config, topologyRegistry, embedder);
    }

    private void pipePair(final String id, final String predicted) {
        pipeTransition(id, Instant.ofEpochMilli(0));
        predictions.pipeInput(id, Fixtures.group(id, predicted), Instant.ofEpochMilli(1));
    }

    /** Asserts that a group, piped after its transition, stops the thread. */
    private AbstractThrowableAssert<?, ? extends Throwable> assertThatPairStopsTheThread(
            final String predicted) {
        final String id = "alfworld/e1/0";
        pipeTransition(id, Instant.ofEpochMilli(0));
        return assertThatThrownBy(
                        () ->
                                predictions.pipeInput(
                                        id, Fixtures.group(id, predicted), Instant.ofEpochMilli(1)))
                .isInstanceOf(StreamsException.class);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void shouldStopTheThreadRatherThanDeadLetterWhenTheRegistryIsUnreachable() throws IOException {
        // The registry goes away for the input's schema; the dead-letter path still works, as it
        // does in a running stage whose dead-letter schema id is cached.
        start(
                Map.of(
                        RegistryConfig.URL,
                        "http://127.0.0.1:" + closedPort(),
                        RegistryConfig.MAX_ATTEMPTS,
                        "1"));

        assertThatThrownBy(
                        () ->
                                predictions.pipeInput(
                                        "alfworld/e1/0",
                                        Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE)))
                .isInstanceOf(StreamsException.class)
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isTrue());
        assertThat(Meters.total(meters.find("rwml.reward.dead.letters"))).isZero();
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldDeadLetterAGroupTheEmbeddingServerRefusesAndKeepRewarding() {
        start(registry);

        pipePair("alfworld/e1/0", REFUSED);
        pipePair("alfworld/e1/1", Fixtures.FRIDGE);

        final TestRecord<byte[], DeadLetter> letter = deadLetters.readRecord();
        assertThat(new String(letter.key(), StandardCharsets.UTF_8)).isEqualTo("alfworld/e1/0");
        assertThat(reason(letter)).isEqualTo("EMBEDDING_HTTP_400");
        assertThat(letter.value().getStage()).isEqualTo(StageName.REWARD.id());
        assertThat(letter.value().getSourceTopic()).isEqualTo("rwml.r1.predictions");
        assertThat(letter.value().getErrorMessage())
                .contains("HTTP 400")
                .contains("refused with 400")
                .contains("max.text.chars");
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(rewards.readKeyValue().key).isEqualTo("alfworld/e1/1");
        assertThat(Meters.total(meters.find("rwml.reward.dead.letters"))).isEqualTo(1);
    }

    @Test
    void shouldStopTheThreadRatherThanDeadLetterWhenTheEmbeddingServerIsDown() {
        start(registry);
        statusForAll = 503;

        assertThatPairStopsTheThread(Fixtures.FRIDGE)
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isTrue());
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(rewards.isEmpty()).isTrue();
    }

    @Test
    void shouldStopTheThreadAsAFaultWhenTheEmbeddingServerRefusesTheApiKey() {
        // Every group would be refused alike; the bounded restart policy stops the stage instead
        // of draining the stream into the dead-letter topic.
        start(registry);
        statusForRefused = 401;

        assertThatPairStopsTheThread(REFUSED)
                .hasStackTraceContaining("HTTP 401")
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isFalse());
        assertThat(deadLetters.isEmpty()).isTrue();
    }
}
