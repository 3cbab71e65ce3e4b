package dev.rwml.worldmodel.serve.openai;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * OpenAI's error object, {@code {"error": {"message", "type", "param", "code"}}}.
 *
 * @param error what went wrong
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ErrorResponse(Detail error) {

    /** An error of this type and message, about {@code param} (or null), with a code. */
    public static ErrorResponse of(
            final String type, final String message, final String param, final String code) {
        return new ErrorResponse(new Detail(message, type, param, code));
    }

    /**
     * The error's detail.
     *
     * @param message what went wrong and what to do
     * @param type its kind, e.g. {@code invalid_request_error}
     * @param param the request field at fault, or null
     * @param code a short machine-readable code (vLLM writes the HTTP status), or null
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Detail(String message, String type, String param, String code) {}
}
