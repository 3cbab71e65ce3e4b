package dev.rwml.env.tau2;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An agent action parsed from text: a tool call, a message to the user, or a malformed call.
 *
 * <p>Format: an action whose text (after trimming and removing a Markdown code fence) starts with
 * <code>{</code>, or that contains both {@code "name"} and {@code "arguments"}, is a tool call
 * written as a JSON object with the tool in {@code name} (also {@code tool}) and its arguments in
 * {@code arguments} (also {@code args}, {@code parameters}; an object or a string holding one).
 * Single quotes, unquoted keys and trailing commas are accepted. Any other text is a message to the
 * user.
 */
public sealed interface DeskAction {

    /** A message to the simulated user. */
    record Message(String text) implements DeskAction {}

    /** A well-formed tool call. */
    record Call(ToolCall call) implements DeskAction {}

    /** Text that looked like a tool call but could not be read as one. */
    record Malformed(String error) implements DeskAction {}

    /** Parses an action text; never throws. */
    static DeskAction parse(final String action) {
        final String text = stripFence(action == null ? "" : action.trim());
        final boolean looksLikeCall =
                text.startsWith("{")
                        || (text.contains("\"name\"") && text.contains("\"arguments\""));
        if (!looksLikeCall) {
            return new Message(text);
        }
        final int start = text.indexOf('{');
        final int end = text.lastIndexOf('}');
        if (end <= start) {
            return new Malformed(
                    "the tool call is not a complete JSON object. Write {\"name\": \"<tool>\","
                            + " \"arguments\": {...}}.");
        }
        try {
            final JsonNode node = Tau2Json.read(text.substring(start, end + 1));
            return fromNode(node);
        } catch (JsonProcessingException e) {
            return new Malformed(
                    "could not parse the tool call as JSON ("
                            + e.getOriginalMessage()
                            + "). Write {\"name\": \"<tool>\", \"arguments\": {...}}.");
        }
    }

    private static DeskAction fromNode(final JsonNode node) throws JsonProcessingException {
        if (!node.isObject()) {
            return new Malformed("a tool call must be a JSON object");
        }
        final JsonNode name = first(node, "name", "tool", "tool_name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            return new Malformed("the tool call has no \"name\" naming the tool");
        }
        JsonNode args = first(node, "arguments", "args", "parameters");
        if (args != null && args.isTextual()) {
            args = args.asText().isBlank() ? null : Tau2Json.read(args.asText());
        }
        if (args == null || args.isNull()) {
            args = Tau2Json.mapper().createObjectNode();
        }
        if (!args.isObject()) {
            return new Malformed("the tool call's \"arguments\" must be a JSON object");
        }
        return new Call(new ToolCall(name.asText().trim(), (ObjectNode) args));
    }

    private static JsonNode first(final JsonNode node, final String... keys) {
        for (final String key : keys) {
            if (node.has(key)) {
                return node.get(key);
            }
        }
        return null;
    }

    private static String stripFence(final String text) {
        if (!text.startsWith("```")) {
            return text;
        }
        final int firstNewline = text.indexOf('\n');
        final int close = text.lastIndexOf("```");
        if (firstNewline < 0 || close <= firstNewline) {
            return text.replace("```", "").trim();
        }
        return text.substring(firstNewline + 1, close).trim();
    }
}
