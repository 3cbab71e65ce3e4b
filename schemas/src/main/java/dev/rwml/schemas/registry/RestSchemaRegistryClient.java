package dev.rwml.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.schemas.retry.Backoff;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client for the Confluent Schema Registry REST API (served by Confluent SR, Apicurio's {@code
 * /apis/ccompat/v7}, Karapace and Redpanda) on {@link java.net.http.HttpClient}, retrying
 * connection failures, 5xx and 429 answers with bounded exponential backoff.
 */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {
    private static final Logger LOG = LoggerFactory.getLogger(RestSchemaRegistryClient.class);

    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json;q=0.9,"
                    + " application/json;q=0.5";
    private static final int SUBJECT_NOT_FOUND = 40401;
    private static final int SCHEMA_NOT_FOUND = 40403;

    private final RegistryConfig config;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final Optional<String> authorization;
    private final AtomicInteger currentUrl = new AtomicInteger();

    public RestSchemaRegistryClient(final RegistryConfig config) {
        if (config.isMock()) {
            throw new IllegalArgumentException(
                    "RestSchemaRegistryClient needs http(s) URLs, got "
                            + config.describeUrls()
                            + "; use SchemaRegistryClients.create for mock:// URLs");
        }
        this.config = config;
        final HttpClient.Builder builder =
                HttpClient.newBuilder()
                        // Registries behind simple servers mishandle the h2c upgrade; 1.1 works
                        // everywhere.
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(config.requestTimeout());
        config.sslContext().ifPresent(builder::sslContext);
        this.http = builder.build();
        this.authorization =
                config.basicAuthUserInfo()
                        .map(
                                info ->
                                        "Basic "
                                                + Base64.getEncoder()
                                                        .encodeToString(
                                                                info.getBytes(
                                                                        StandardCharsets.UTF_8)));
    }

    @Override
    public int register(final String subject, final Schema schema) {
        return postSchema(
                subject,
                "/subjects/" + encode(subject) + "/versions",
                schema,
                "register a schema under subject " + subject,
                "register under " + subject);
    }

    @Override
    public int lookupId(final String subject, final Schema schema) {
        return postSchema(
                subject,
                "/subjects/" + encode(subject),
                schema,
                "look up a schema under subject " + subject,
                "look up under " + subject);
    }

    /** Posts {@code schema} of {@code subject} to {@code path}; returns the answer's id. */
    private int postSchema(
            final String subject,
            final String path,
            final Schema schema,
            final String operation,
            final String idContext) {
        final JsonNode answer =
                send(new Call("POST", path, schemaBody(schema), operation, subject, null));
        return requiredInt(answer, "id", idContext);
    }

    @Override
    public Schema schemaById(final int id) {
        final JsonNode answer =
                send(
                        new Call(
                                "GET",
                                "/schemas/ids/" + id,
                                null,
                                "fetch schema id " + id,
                                null,
                                id));
        final JsonNode type = answer.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equalsIgnoreCase(type.asText())) {
            throw new SchemaRegistryException(
                    "schema id " + id + " is a " + type.asText() + " schema, not Avro", 200, -1);
        }
        final JsonNode schema = answer.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new SchemaRegistryException(
                    "registry " + describe() + " answered schema id " + id + " without a schema",
                    200,
                    -1);
        }
        return new Schema.Parser().parse(schema.asText());
    }

    @Override
    public CompatibilityLevel compatibility(final String subject) {
        JsonNode answer;
        try {
            answer =
                    send(
                            new Call(
                                    "GET",
                                    "/config/" + encode(subject) + "?defaultToGlobal=true",
                                    null,
                                    "read the compatibility of subject " + subject,
                                    subject,
                                    null));
        } catch (SchemaRegistryException e) {
            if (e.httpStatus() != 404) {
                throw e;
            }
            // Registries that ignore defaultToGlobal answer 404 for subjects without their own
            // level; the global level applies to them.
            answer =
                    send(
                            new Call(
                                    "GET",
                                    "/config",
                                    null,
                                    "read the global compatibility",
                                    null,
                                    null));
        }
        JsonNode level = answer.get("compatibilityLevel");
        if (level == null) {
            level = answer.get("compatibility");
        }
        if (level == null || !level.isTextual()) {
            throw new SchemaRegistryException(
                    "registry " + describe() + " answered no compatibility level: " + answer,
                    200,
                    -1);
        }
        return CompatibilityLevel.parse(level.asText());
    }

    @Override
    public void setCompatibility(final String subject, final CompatibilityLevel level) {
        final ObjectNode body = json.createObjectNode().put("compatibility", level.name());
        send(
                new Call(
                        "PUT",
                        "/config/" + encode(subject),
                        body,
                        "set the compatibility of subject " + subject,
                        subject,
                        null));
    }

    @Override
    public String describe() {
        return config.describeUrls();
    }

    private ObjectNode schemaBody(final Schema schema) {
        return json.createObjectNode().put("schema", schema.toString());
    }

    private JsonNode send(final Call call) {
        Throwable lastConnectFailure = null;
        SchemaRegistryException lastAnswer = null;
        final Backoff backoff = new Backoff(config.initialBackoff(), config.maxBackoff());
        for (int attempt = 1; attempt <= config.maxAttempts(); attempt++) {
            final int urlIndex = Math.floorMod(currentUrl.get(), config.urls().size());
            final String base = config.urls().get(urlIndex);
            try {
                final HttpResponse<String> response =
                        http.send(request(base, call), HttpResponse.BodyHandlers.ofString());
                final int status = response.statusCode();
                if (status >= 200 && status < 300) {
                    return response.body() == null || response.body().isBlank()
                            ? json.createObjectNode()
                            : json.readTree(response.body());
                }
                lastAnswer = errorFor(base, call, status, response.body());
                if (!lastAnswer.isRetriable()) {
                    throw lastAnswer;
                }
                lastConnectFailure = null;
            } catch (javax.net.ssl.SSLHandshakeException e) {
                if (RegistryTlsException.rejectsCertificate(e)) {
                    // An untrusted certificate stays untrusted: no retry, no other URL.
                    throw new RegistryTlsException(base, e);
                }
                lastConnectFailure = e;
                currentUrl.compareAndSet(urlIndex, urlIndex + 1);
            } catch (IOException e) {
                // Connection refused, reset or timed out: try the next URL, if there is one.
                lastConnectFailure = e;
                currentUrl.compareAndSet(urlIndex, urlIndex + 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException(
                        "interrupted while trying to " + call.operation(), -1, -1, e);
            }
            if (attempt < config.maxAttempts()) {
                final Duration wait = jittered(backoff.next());
                LOG.warn(
                        "schema registry {} failed to {} (attempt {}/{}): {}; retrying in {} ms",
                        base,
                        call.operation(),
                        attempt,
                        config.maxAttempts(),
                        lastConnectFailure != null
                                ? lastConnectFailure.toString()
                                : lastAnswer.getMessage(),
                        wait.toMillis());
                pause(wait, call);
            }
        }
        if (lastConnectFailure != null) {
            throw new RegistryUnreachableException(
                    describe(), config.maxAttempts(), lastConnectFailure);
        }
        throw new SchemaRegistryException(
                lastAnswer.getMessage()
                        + " (still failing after "
                        + config.maxAttempts()
                        + " attempts)",
                lastAnswer.httpStatus(),
                lastAnswer.errorCode(),
                lastAnswer);
    }

    private HttpRequest request(final String base, final Call call) {
        final HttpRequest.Builder builder =
                HttpRequest.newBuilder(URI.create(base + call.path()))
                        .timeout(config.requestTimeout())
                        .header("Accept", ACCEPT);
        authorization.ifPresent(value -> builder.header("Authorization", value));
        if (call.body() == null) {
            builder.method(call.method(), HttpRequest.BodyPublishers.noBody());
        } else {
            builder.header("Content-Type", CONTENT_TYPE)
                    .method(
                            call.method(),
                            HttpRequest.BodyPublishers.ofString(
                                    call.body().toString(), StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private SchemaRegistryException errorFor(
            final String base, final Call call, final int status, final String body) {
        int errorCode = -1;
        String message = body == null || body.isBlank() ? "no message" : body.strip();
        try {
            final JsonNode error = json.readTree(body);
            if (error != null && error.isObject()) {
                errorCode = error.path("error_code").asInt(-1);
                message = registryMessage(error, message);
            }
        } catch (IOException e) {
            // Not JSON (a proxy's HTML page, say): the raw body is the best message there is.
        }
        if (status == 401 || status == 403) {
            return new RegistryUnauthorizedException(
                    base, call.operation(), message, status, errorCode);
        }
        if (status == 409 && call.subject() != null) {
            return new IncompatibleSchemaException(call.subject(), message, status, errorCode);
        }
        if (status == 404 && call.id() != null && errorCode != SUBJECT_NOT_FOUND) {
            return UnknownSchemaException.forId(call.id(), base, status, errorCode);
        }
        if (status == 404
                && call.subject() != null
                && call.body() != null
                && (errorCode == SUBJECT_NOT_FOUND || errorCode == SCHEMA_NOT_FOUND)) {
            return UnknownSchemaException.forSubject(call.subject(), base, status, errorCode);
        }
        final String hint =
                status == 404 && errorCode < 0
                        ? "; check that the URL includes the API path (Apicurio:"
                                + " http://host:8080/apis/ccompat/v7)"
                        : "";
        return new SchemaRegistryException(
                "schema registry at "
                        + base
                        + " failed to "
                        + call.operation()
                        + ": HTTP "
                        + status
                        + (errorCode >= 0 ? " (error_code " + errorCode + ")" : "")
                        + ": "
                        + message
                        + hint,
                status,
                errorCode);
    }

    private static String registryMessage(final JsonNode error, final String fallback) {
        final StringBuilder text = new StringBuilder(error.path("message").asText(fallback));
        // Apicurio puts the rule violation's causes beside the message.
        final JsonNode detail = error.get("detail");
        if (detail != null && detail.isTextual() && !detail.asText().isBlank()) {
            text.append("; ").append(detail.asText().lines().findFirst().orElse(""));
        }
        final JsonNode causes = error.get("causes");
        if (causes != null && causes.isArray()) {
            for (final JsonNode cause : causes) {
                text.append("; ").append(cause.path("description").asText(cause.toString()));
                if (cause.hasNonNull("context")) {
                    text.append(" at ").append(cause.get("context").asText());
                }
            }
        }
        return text.toString();
    }

    private static Duration jittered(final Duration wait) {
        // Jitter spreads the retries of many clients that failed together.
        final double jitter = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
        return Duration.ofMillis(Math.max(1, Math.round(wait.toMillis() * jitter)));
    }

    private static void pause(final Duration wait, final Call call) {
        try {
            Thread.sleep(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException(
                    "interrupted while waiting to retry " + call.operation(), -1, -1, e);
        }
    }

    private int requiredInt(final JsonNode answer, final String field, final String what) {
        final JsonNode value = answer.get(field);
        if (value == null || !value.canConvertToInt()) {
            throw new SchemaRegistryException(
                    "registry "
                            + describe()
                            + " answered "
                            + what
                            + " without '"
                            + field
                            + "': "
                            + answer,
                    200,
                    -1);
        }
        return value.asInt();
    }

    private static String encode(final String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** One REST call and what it is about, so errors can name the subject or id. */
    private record Call(
            String method,
            String path,
            JsonNode body,
            String operation,
            String subject,
            Integer id) {}
}
