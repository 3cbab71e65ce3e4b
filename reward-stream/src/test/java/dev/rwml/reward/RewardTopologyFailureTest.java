package dev.rwml.reward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Transition;
import dev.rwml.reward.embed.CachingEmbedder;
import dev.rwml.reward.embed.OpenAiEmbedder;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reward topology when a dependency fails: an unreachable registry or embedding server stops
 * the thread so the records are retried, while an input the embedding server refuses is
 * dead-lettered and the stage keeps rewarding.
 */
class RewardTopologyFailureTest {

    private static final String SCOPE = "reward-topology-failure-test";
    private static final String REGISTRY = "mock://" + SCOPE;
    private static final String REFUSED = "REFUSED-BY-THE-EMBEDDING-SERVER";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RewardConfig config = RewardConfig.defaults("r1", "unused:9092", REGISTRY);
    private final Map<String, Object> registry = RewardApp.registryConfig(config);

    private HttpServer embeddingServer;
    private volatile int statusForAll = 200;
    private volatile int statusForRefused = 400;

    private TopologyTestDriver driver;
    private RewardMetrics metrics;
    private TestInputTopic<String, Transition> transitions;
    private TestInputTopic<String, PredictionGroup> predictions;
    private TestOutputTopic<String, RewardedGroup> rewards;
    private TestOutputTopic<byte[], DeadLetter> deadLetters;

    @BeforeEach
    void startEmbeddingServer() throws IOException {
        embeddingServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        embeddingServer.createContext("/v1/embeddings", this::embed);
        embeddingServer.start();
    }

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
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
        metrics = new RewardMetrics(new SimpleMeterRegistry(), "r1");
        final CachingEmbedder embedder =
                new CachingEmbedder(
                        new OpenAiEmbedder(
                                "http://127.0.0.1:" + embeddingServer.getAddress().getPort(),
                                "stub-embedder",
                                null,
                                Duration.ofSeconds(5)),
                        0);
        driver =
                new TopologyTestDriver(
                        RewardTopology.build(
                                config,
                                topologyRegistry,
                                RewardApp.rewarder(config, embedder, metrics),
                                metrics,
                                Clock.systemUTC()),
                        RewardApp.streamsProperties(config, metrics));
        final TopicCatalog catalog = TopicCatalog.defaults();
        transitions =
                driver.createInputTopic(
                        TopicCatalog.TRANSITIONS,
                        new StringSerializer(),
                        EventSerdes.forValue(Transition.class, registry).serializer());
        predictions =
                driver.createInputTopic(
                        catalog.run("r1").predictions().name(),
                        new StringSerializer(),
                        EventSerdes.forValue(PredictionGroup.class, registry).serializer());
        rewards =
                driver.createOutputTopic(
                        catalog.run("r1").rewards().name(),
                        Serdes.String().deserializer(),
                        EventSerdes.forValue(RewardedGroup.class, registry).deserializer());
        deadLetters =
                driver.createOutputTopic(
                        catalog.run("r1").deadLetters().name(),
                        Serdes.ByteArray().deserializer(),
                        EventSerdes.forValue(DeadLetter.class, registry).deserializer());
    }

    private void pipePair(final String id, final String predicted) {
        transitions.pipeInput(
                id, Fixtures.transition(id, "alfworld", Fixtures.FRIDGE), Instant.ofEpochMilli(0));
        predictions.pipeInput(id, Fixtures.group(id, predicted), Instant.ofEpochMilli(1));
    }

    private static String reason(final TestRecord<byte[], DeadLetter> letter) {
        return new String(
                letter.headers().lastHeader(DeadLetters.REASON_HEADER).value(),
                StandardCharsets.UTF_8);
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
        assertThat(metrics.total("rwml.reward.dead.letters")).isZero();
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
        assertThat(metrics.total("rwml.reward.dead.letters")).isEqualTo(1);
    }

    @Test
    void shouldStopTheThreadRatherThanDeadLetterWhenTheEmbeddingServerIsDown() {
        start(registry);
        statusForAll = 503;
        transitions.pipeInput(
                "alfworld/e1/0",
                Fixtures.transition("alfworld/e1/0", "alfworld", Fixtures.FRIDGE),
                Instant.ofEpochMilli(0));

        assertThatThrownBy(
                        () ->
                                predictions.pipeInput(
                                        "alfworld/e1/0",
                                        Fixtures.group("alfworld/e1/0", Fixtures.FRIDGE),
                                        Instant.ofEpochMilli(1)))
                .isInstanceOf(StreamsException.class)
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
        transitions.pipeInput(
                "alfworld/e1/0",
                Fixtures.transition("alfworld/e1/0", "alfworld", Fixtures.FRIDGE),
                Instant.ofEpochMilli(0));

        assertThatThrownBy(
                        () ->
                                predictions.pipeInput(
                                        "alfworld/e1/0",
                                        Fixtures.group("alfworld/e1/0", REFUSED),
                                        Instant.ofEpochMilli(1)))
                .isInstanceOf(StreamsException.class)
                .hasStackTraceContaining("HTTP 401")
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isFalse());
        assertThat(deadLetters.isEmpty()).isTrue();
    }
}
