package dev.rwml.serving;

import dev.rwml.worldmodel.serve.openai.ErrorResponse;

/** A request the server answers with an HTTP error status and OpenAI's error object. */
final class ApiException extends RuntimeException {

    private final int status;
    private final String type;
    private final String param;

    ApiException(final int status, final String type, final String message, final String param) {
        super(message);
        this.status = status;
        this.type = type;
        this.param = param;
    }

    /**
     * 400: the request is malformed, a value is out of the server's limits, or it asks for
     * something the server does not do (vLLM answers all of these 400, and OpenAI's clients expect
     * it).
     */
    static ApiException badRequest(final String message, final String param) {
        return new ApiException(400, "invalid_request_error", message, param);
    }

    int status() {
        return status;
    }

    ErrorResponse body() {
        return ErrorResponse.of(type, getMessage(), param, Integer.toString(status));
    }
}
