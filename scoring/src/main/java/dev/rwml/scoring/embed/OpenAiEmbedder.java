package dev.rwml.scoring.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * An embedder backed by an OpenAI-compatible {@code POST /v1/embeddings} endpoint (vLLM, TEI,
 * llama.cpp, Ollama, ... serving e.g. Qwen3-Embedding, the paper's model); the whole batch goes in
 * one request.
 */
public final class OpenAiEmbedder implements TextEmbedder {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BODY_PREVIEW = 300;

    private final URI endpoint;
    private final String model;
    private final String apiKey;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param baseUrl the server, e.g. {@code http://gpu-box:8000} or {@code http://gpu-box:8000/v1}
     * @param model the model name the server expects, e.g. {@code Qwen/Qwen3-Embedding-8B}
     * @param apiKey sent as a bearer token when not null or blank
     * @param timeout the limit for one request
     */
    public OpenAiEmbedder(
            final String baseUrl, final String model, final String apiKey, final Duration timeout) {
        Objects.requireNonNull(baseUrl, "baseUrl");
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException(
                    "an OpenAI-compatible embedder needs the model name the server serves");
        }
        this.endpoint = endpointOf(baseUrl);
        this.model = model;
        this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    static URI endpointOf(final String baseUrl) {
        String base = baseUrl.strip();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        if (!base.startsWith("http://") && !base.startsWith("https://")) {
            throw new IllegalArgumentException(
                    "embedding URL must start with http:// or https://, got '" + baseUrl + "'");
        }
        if (base.endsWith("/embeddings")) {
            return URI.create(base);
        }
        return URI.create(base.endsWith("/v1") ? base + "/embeddings" : base + "/v1/embeddings");
    }

    /** The URL requests go to. */
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public String modelName() {
        return model;
    }

    @Override
    public List<float[]> embedAll(final List<String> texts) {
        if (texts.isEmpty()) {
            return List.of();
        }
        final HttpResponse<String> response = send(requestBody(texts));
        if (response.statusCode() / 100 != 2) {
            throw statusError(response.statusCode(), response.body());
        }
        return parse(response.body(), texts.size());
    }

    private EmbeddingException statusError(final int status, final String body) {
        final String answered =
                "embedding server " + endpoint + " answered HTTP " + status + ": " + preview(body);
        if (EmbeddingException.isRetriableStatus(status)) {
            return EmbeddingException.ofHttpStatus(
                    status,
                    answered
                            + "; it is down or overloaded, so the stage retries the group until it"
                            + " answers (check the server if this lasts)");
        }
        final String todo =
                switch (status) {
                    case 400, 413, 422 ->
                            "the server refused this input; check its input limits (max input"
                                    + " tokens, batch size) for model '"
                                    + model
                                    + "', or lower max.text.chars so that such groups are"
                                    + " rejected before they are embedded";
                    case 401, 403 ->
                            "check the API key (the variable named by embedding.api.key.env) and"
                                    + " its permission for model '"
                                    + model
                                    + "'";
                    default ->
                            "check embedding.url, the model name '" + model + "' and the API key";
                };
        return EmbeddingException.ofHttpStatus(
                status, answered + "; retrying will not help: " + todo);
    }

    private String requestBody(final List<String> texts) {
        final ObjectNode body = JSON.createObjectNode();
        body.put("model", model);
        final ArrayNode input = body.putArray("input");
        texts.forEach(input::add);
        body.put("encoding_format", "float");
        return body.toString();
    }

    private HttpResponse<String> send(final String body) {
        final HttpRequest.Builder request =
                HttpRequest.newBuilder(endpoint)
                        .timeout(timeout)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body));
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new EmbeddingException(
                    "cannot reach embedding server " + endpoint + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddingException("interrupted while calling " + endpoint, e);
        }
    }

    private List<float[]> parse(final String body, final int expected) {
        final JsonNode data;
        try {
            data = JSON.readTree(body).path("data");
        } catch (IOException e) {
            throw new EmbeddingException(
                    "embedding server " + endpoint + " did not answer JSON: " + preview(body), e);
        }
        if (!data.isArray() || data.size() != expected) {
            throw new EmbeddingException(
                    "embedding server "
                            + endpoint
                            + " returned "
                            + (data.isArray() ? data.size() : "no")
                            + " embeddings for "
                            + expected
                            + " inputs: "
                            + preview(body));
        }
        final List<float[]> vectors =
                new ArrayList<>(Collections.nCopies(expected, (float[]) null));
        for (int i = 0; i < expected; i++) {
            final JsonNode item = data.get(i);
            // The API allows any order; "index" says which input each vector belongs to.
            final int index = item.path("index").asInt(i);
            final JsonNode embedding = item.path("embedding");
            if (index < 0 || index >= expected || !embedding.isArray() || embedding.isEmpty()) {
                throw new EmbeddingException(
                        "embedding server "
                                + endpoint
                                + " returned a malformed item "
                                + i
                                + ": "
                                + preview(item.toString()));
            }
            final float[] vector = new float[embedding.size()];
            for (int d = 0; d < vector.length; d++) {
                vector[d] = (float) embedding.get(d).asDouble();
            }
            vectors.set(index, vector);
        }
        if (vectors.contains(null)) {
            throw new EmbeddingException(
                    "embedding server " + endpoint + " repeated an index: " + preview(body));
        }
        return vectors;
    }

    private static String preview(final String body) {
        return body.length() <= BODY_PREVIEW ? body : body.substring(0, BODY_PREVIEW) + "...";
    }
}
