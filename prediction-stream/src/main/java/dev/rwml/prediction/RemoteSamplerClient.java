package dev.rwml.prediction;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.worldmodel.serve.openai.CompletionRequest;
import dev.rwml.worldmodel.serve.openai.CompletionResponse;
import dev.rwml.worldmodel.serve.openai.ErrorResponse;
import dev.rwml.worldmodel.serve.openai.LoraAdapterRequest;
import dev.rwml.worldmodel.serve.openai.TokenizeRequest;
import dev.rwml.worldmodel.serve.openai.TokenizeResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/**
 * The calls the remote sampler makes to an inference server speaking vLLM's OpenAI-compatible
 * contract: {@code POST /v1/completions}, {@code /tokenize}, {@code /v1/load_lora_adapter} and
 * {@code /v1/unload_lora_adapter}. Every failure is a {@link SamplerException} that says whether to
 * retry.
 */
final class RemoteSamplerClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BODY_PREVIEW = 300;

    private final RemoteSamplerSettings settings;
    private final HttpClient http;

    RemoteSamplerClient(final RemoteSamplerSettings settings) {
        this.settings = settings;
        this.http = HttpClient.newBuilder().connectTimeout(settings.timeout()).build();
    }

    /** The server's root. */
    URI server() {
        return settings.server();
    }

    /** Completions of a request; see {@link CompletionRequest}. */
    CompletionResponse complete(final CompletionRequest request) {
        return read("/v1/completions", post("/v1/completions", request), CompletionResponse.class);
    }

    /** The server's token ids of {@code text} under {@code model}. */
    List<Integer> tokenize(final String model, final String text) {
        return read(
                        "/tokenize",
                        post("/tokenize", new TokenizeRequest(model, text)),
                        TokenizeResponse.class)
                .tokens();
    }

    /** Loads the PEFT adapter in {@code path} (as the server sees it) under {@code name}. */
    void loadAdapter(final String name, final String path) {
        post("/v1/load_lora_adapter", new LoraAdapterRequest(name, path));
    }

    /** Unloads the adapter {@code name}. */
    void unloadAdapter(final String name) {
        post("/v1/unload_lora_adapter", new LoraAdapterRequest(name, null));
    }

    /** The 2xx body of a POST of {@code body} as JSON to {@code path}. */
    private String post(final String path, final Object body) {
        final URI uri = settings.server().resolve(path);
        final HttpRequest.Builder request;
        try {
            request =
                    HttpRequest.newBuilder(uri)
                            .timeout(settings.timeout())
                            .header("Content-Type", "application/json")
                            .POST(
                                    HttpRequest.BodyPublishers.ofString(
                                            JSON.writeValueAsString(body)));
        } catch (final JsonProcessingException e) {
            throw new IllegalStateException("cannot write the request to " + uri, e);
        }
        settings.apiKey().ifPresent(key -> request.header("Authorization", "Bearer " + key));
        final HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new SamplerException(
                    "cannot reach the inference server at "
                            + uri
                            + " ("
                            + e
                            + "); the stage retries until it answers",
                    e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SamplerException("interrupted while calling " + uri, e);
        }
        if (response.statusCode() / 100 != 2) {
            throw statusError(uri, response.statusCode(), response.body());
        }
        return response.body();
    }

    private SamplerException statusError(final URI uri, final int status, final String body) {
        final String answered =
                "inference server " + uri + " answered HTTP " + status + ": " + errorMessage(body);
        if (SamplerException.isRetriableStatus(status)) {
            return SamplerException.ofHttpStatus(
                    status,
                    answered
                            + "; it is down or overloaded, so the stage retries the batch until it"
                            + " answers");
        }
        final String todo =
                switch (status) {
                    case 401, 403 ->
                            "check the API key (the variable named by sampler.api.key.env) and its"
                                    + " permission on the server";
                    case 404 ->
                            "check sampler.url and sampler.model ('"
                                    + settings.model()
                                    + "'), and for LoRA runs that the server allows runtime"
                                    + " adapter loading (vLLM: VLLM_ALLOW_RUNTIME_LORA_UPDATING=True)";
                    default -> "the server refused this request";
                };
        return SamplerException.ofHttpStatus(status, answered + "; " + todo);
    }

    /** The error object's message, else a preview of the body. */
    private static String errorMessage(final String body) {
        try {
            final ErrorResponse error = JSON.readValue(body, ErrorResponse.class);
            if (error.error() != null && error.error().message() != null) {
                return error.error().message();
            }
            final String flat = JSON.readTree(body).path("message").asText("");
            if (!flat.isBlank()) {
                return flat;
            }
        } catch (final IOException notJson) {
            // a plain-text or empty answer: shown as it is
        }
        return body.length() <= BODY_PREVIEW ? body : body.substring(0, BODY_PREVIEW) + "...";
    }

    private <T> T read(final String path, final String body, final Class<T> type) {
        try {
            return JSON.readValue(body, type);
        } catch (final IOException e) {
            throw new SamplerException(
                    "inference server "
                            + settings.server().resolve(path)
                            + " answered something that is not a "
                            + type.getSimpleName()
                            + ": "
                            + (body.length() <= BODY_PREVIEW
                                    ? body
                                    : body.substring(0, BODY_PREVIEW) + "..."),
                    e);
        }
    }
}
