package dev.rwml.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RestSchemaRegistryClientTest {
    private static final String SUBJECT = "rwml.transitions-value";

    private HttpServer server;
    private final Deque<Answer> answers = new ArrayDeque<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    /** A scripted response. */
    private record Answer(int status, String body) {}

    /** A request the fake registry received. */
    private record Seen(
            String method, String path, String contentType, String authorization, String body) {}

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(
                "/",
                exchange -> {
                    final String body =
                            new String(
                                    exchange.getRequestBody().readAllBytes(),
                                    StandardCharsets.UTF_8);
                    seen.add(
                            new Seen(
                                    exchange.getRequestMethod(),
                                    exchange.getRequestURI().toString(),
                                    exchange.getRequestHeaders().getFirst("Content-Type"),
                                    exchange.getRequestHeaders().getFirst("Authorization"),
                                    body));
                    final Answer answer;
                    synchronized (answers) {
                        answer =
                                answers.isEmpty()
                                        ? new Answer(500, "{\"error_code\":50001}")
                                        : answers.poll();
                    }
                    final byte[] out = answer.body().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders()
                            .add("Content-Type", RestSchemaRegistryClient.CONTENT_TYPE);
                    exchange.sendResponseHeaders(answer.status(), out.length);
                    exchange.getResponseBody().write(out);
                    exchange.close();
                });
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private void answer(final int status, final String body) {
        synchronized (answers) {
            answers.add(new Answer(status, body));
        }
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/apis/ccompat/v7";
    }

    private RestSchemaRegistryClient client(final RegistryConfig config) {
        return new RestSchemaRegistryClient(
                config.withRetries(4, Duration.ofMillis(1), Duration.ofMillis(5)));
    }

    @Test
    void shouldRegisterUnderSubjectWithConfluentContentType() {
        answer(200, "{\"id\":7}");
        final int id =
                client(RegistryConfig.of(url())).register(SUBJECT, MockSchemaRegistryTest.v1());

        assertThat(id).isEqualTo(7);
        final Seen request = seen.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/apis/ccompat/v7/subjects/" + SUBJECT + "/versions");
        assertThat(request.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
        assertThat(request.body()).contains("\"schema\"").contains("Thing");
        assertThat(request.authorization()).isNull();
    }

    @Test
    void shouldRetryOn503AndThenSucceed() {
        answer(503, "{\"error_code\":50301,\"message\":\"starting\"}");
        answer(503, "not json");
        answer(200, "{\"id\":3}");
        assertThat(client(RegistryConfig.of(url())).register(SUBJECT, MockSchemaRegistryTest.v1()))
                .isEqualTo(3);
        assertThat(seen).hasSize(3);
    }

    @Test
    void shouldRetryOn429() {
        answer(429, "{\"error_code\":42901,\"message\":\"slow down\"}");
        answer(200, "{\"schema\":\"\\\"string\\\"\"}");
        assertThat(client(RegistryConfig.of(url())).schemaById(1).getType())
                .isEqualTo(org.apache.avro.Schema.Type.STRING);
        assertThat(seen).hasSize(2);
    }

    @Test
    void shouldGiveUpAfterBoundedAttemptsOnPersistentServerError() {
        for (int i = 0; i < 10; i++) {
            answer(500, "{\"error_code\":50001,\"message\":\"store down\"}");
        }
        assertThatThrownBy(
                        () ->
                                client(RegistryConfig.of(url()))
                                        .register(SUBJECT, MockSchemaRegistryTest.v1()))
                .isInstanceOfSatisfying(
                        SchemaRegistryException.class,
                        e -> {
                            assertThat(e.httpStatus()).isEqualTo(500);
                            assertThat(e.isRetriable()).isTrue();
                        })
                .hasMessageContaining("store down")
                .hasMessageContaining("after 4 attempts");
        assertThat(seen).hasSize(4);
    }

    @Test
    void shouldRaiseIncompatibleWithSubjectAndRegistryReasonOn409() {
        answer(
                409,
                "{\"error_code\":409,\"message\":\"Schema being registered is incompatible with"
                        + " an earlier schema; READER_FIELD_MISSING_DEFAULT score\"}");
        assertThatThrownBy(
                        () ->
                                client(RegistryConfig.of(url()))
                                        .register(
                                                SUBJECT, MockSchemaRegistryTest.v2WithoutDefault()))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo(SUBJECT);
                            assertThat(e.reason()).contains("READER_FIELD_MISSING_DEFAULT score");
                        })
                .hasMessageContaining(SUBJECT);
        assertThat(seen).hasSize(1);
    }

    @Test
    void shouldIncludeApicurioRuleViolationCausesInTheReason() {
        answer(
                409,
                "{\"error_code\":409,\"message\":\"Incompatible schema\",\"causes\":[{"
                        + "\"description\":\"reader field score has no default\","
                        + "\"context\":\"/fields/1\"}]}");
        assertThatThrownBy(
                        () ->
                                client(RegistryConfig.of(url()))
                                        .register(
                                                SUBJECT, MockSchemaRegistryTest.v2WithoutDefault()))
                .isInstanceOf(IncompatibleSchemaException.class)
                .hasMessageContaining("reader field score has no default at /fields/1");
    }

    @Test
    void shouldRaiseUnknownSchemaOn40403ForId() {
        answer(404, "{\"error_code\":40403,\"message\":\"Schema 99 not found\"}");
        assertThatThrownBy(() -> client(RegistryConfig.of(url())).schemaById(99))
                .isInstanceOf(UnknownSchemaException.class)
                .hasMessageContaining("schema id 99");
        assertThat(seen.get(0).path()).endsWith("/schemas/ids/99");
    }

    @Test
    void shouldRaiseUnknownSchemaWhenLookupFindsNothing() {
        answer(404, "{\"error_code\":40401,\"message\":\"Subject not found\"}");
        assertThatThrownBy(
                        () ->
                                client(RegistryConfig.of(url()))
                                        .lookupId(SUBJECT, MockSchemaRegistryTest.v1()))
                .isInstanceOf(UnknownSchemaException.class)
                .hasMessageContaining(SUBJECT);
    }

    @Test
    void shouldHintAtTheApiPathOnPlain404() {
        answer(404, "<html>Not Found</html>");
        assertThatThrownBy(
                        () ->
                                client(RegistryConfig.of(url()))
                                        .register(SUBJECT, MockSchemaRegistryTest.v1()))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("/apis/ccompat/v7");
    }

    @Test
    void shouldRaiseUnreachableWithUrlWhenNothingListens() throws IOException {
        final int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        final String dead = "http://127.0.0.1:" + port;
        assertThatThrownBy(() -> client(RegistryConfig.of(dead)).schemaById(1))
                .isInstanceOfSatisfying(
                        RegistryUnreachableException.class,
                        e -> assertThat(e.isRetriable()).isTrue())
                .hasMessageContaining(dead)
                .hasMessageContaining("after 4 attempt(s)")
                .hasMessageContaining("check that it is running");
    }

    @Test
    void shouldFailOverToTheNextUrlWhenTheFirstIsUnreachable() throws IOException {
        final int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        answer(200, "{\"id\":5}");
        final RegistryConfig config = RegistryConfig.of("http://127.0.0.1:" + port + "," + url());
        assertThat(client(config).register(SUBJECT, MockSchemaRegistryTest.v1())).isEqualTo(5);
    }

    @Test
    void shouldSendBasicAuthHeaderFromUserInfo() {
        answer(200, "{\"id\":1}");
        final RegistryConfig config =
                RegistryConfig.fromMap(
                        java.util.Map.of(
                                RegistryConfig.URL, url(),
                                RegistryConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO",
                                RegistryConfig.BASIC_AUTH_USER_INFO, "alice:s3cret"));
        client(config).register(SUBJECT, MockSchemaRegistryTest.v1());
        assertThat(seen.get(0).authorization())
                .isEqualTo(
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(
                                                "alice:s3cret".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldRaiseUnauthorizedOn401WithoutRetrying() {
        answer(401, "{\"error_code\":40101,\"message\":\"Unauthorized\"}");
        assertThatThrownBy(
                        () ->
                                client(RegistryConfig.of(url()).withBasicAuth("bob", "wrong"))
                                        .register(SUBJECT, MockSchemaRegistryTest.v1()))
                .isInstanceOf(RegistryUnauthorizedException.class)
                .hasMessageContaining("basic.auth.user.info")
                .hasMessageNotContaining("wrong");
        assertThat(seen).hasSize(1);
    }

    @Test
    void shouldSetAndGetSubjectCompatibility() {
        answer(200, "{\"compatibility\":\"BACKWARD\"}");
        answer(200, "{\"compatibilityLevel\":\"BACKWARD\"}");
        final RestSchemaRegistryClient client = client(RegistryConfig.of(url()));
        client.setCompatibility(SUBJECT, CompatibilityLevel.BACKWARD);
        assertThat(client.compatibility(SUBJECT)).isEqualTo(CompatibilityLevel.BACKWARD);
        assertThat(seen.get(0).method()).isEqualTo("PUT");
        assertThat(seen.get(0).path()).endsWith("/config/" + SUBJECT);
        assertThat(seen.get(0).body()).isEqualTo("{\"compatibility\":\"BACKWARD\"}");
        assertThat(seen.get(1).path()).endsWith("/config/" + SUBJECT + "?defaultToGlobal=true");
    }

    @Test
    void shouldFallBackToGlobalCompatibilityWhenSubjectHasNone() {
        answer(404, "{\"error_code\":40408,\"message\":\"no subject level\"}");
        answer(200, "{\"compatibilityLevel\":\"FULL\"}");
        assertThat(client(RegistryConfig.of(url())).compatibility(SUBJECT))
                .isEqualTo(CompatibilityLevel.FULL);
        assertThat(seen.get(1).path()).endsWith("/config");
    }

    @Test
    void shouldAskTheRegistryOncePerSchemaThroughTheCache() {
        answer(200, "{\"id\":11}");
        answer(200, "{\"schema\":\"\\\"long\\\"\"}");
        final SchemaRegistryClient cached =
                SchemaRegistryClients.create(
                        RegistryConfig.of(url())
                                .withRetries(1, Duration.ofMillis(1), Duration.ofMillis(1)));
        for (int i = 0; i < 3; i++) {
            assertThat(cached.register(SUBJECT, MockSchemaRegistryTest.v1())).isEqualTo(11);
            assertThat(cached.schemaById(11)).isEqualTo(MockSchemaRegistryTest.v1());
            assertThat(cached.schemaById(12).getType()).isEqualTo(org.apache.avro.Schema.Type.LONG);
        }
        assertThat(seen).hasSize(2);
    }
}
