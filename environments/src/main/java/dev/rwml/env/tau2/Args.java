package dev.rwml.env.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/** Typed, validated access to a tool call's arguments; every failure is a {@link ToolError}. */
public final class Args {

    private final ObjectNode node;

    /** Wraps the arguments object of a call. */
    public Args(final ObjectNode node) {
        this.node = node;
    }

    private JsonNode required(final String key) {
        final JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            throw ToolError.badArgument("missing argument '" + key + "'");
        }
        return value;
    }

    /** A non-blank string argument; numbers are accepted and read as text. */
    public String text(final String key) {
        final JsonNode value = required(key);
        if (!value.isTextual() && !value.isNumber()) {
            throw ToolError.badArgument("argument '" + key + "' must be a string");
        }
        final String text = value.asText().trim();
        if (text.isEmpty()) {
            throw ToolError.badArgument("argument '" + key + "' must not be empty");
        }
        return text;
    }

    /** A string argument that may be absent or empty (returns "" then). */
    public String optionalText(final String key) {
        final JsonNode value = node.get(key);
        return value == null || value.isNull() ? "" : value.asText().trim();
    }

    /** A non-empty list of strings. */
    public List<String> texts(final String key) {
        final JsonNode value = required(key);
        if (!value.isArray() || value.isEmpty()) {
            throw ToolError.badArgument("argument '" + key + "' must be a non-empty list");
        }
        final List<String> out = new ArrayList<>();
        for (final JsonNode item : value) {
            if (!item.isTextual() || item.asText().isBlank()) {
                throw ToolError.badArgument("argument '" + key + "' must hold strings");
            }
            out.add(item.asText().trim());
        }
        return out;
    }

    /** A non-empty list of objects. */
    public List<Args> objects(final String key) {
        final JsonNode value = required(key);
        if (!value.isArray() || value.isEmpty()) {
            throw ToolError.badArgument("argument '" + key + "' must be a non-empty list");
        }
        final List<Args> out = new ArrayList<>();
        for (final JsonNode item : value) {
            if (!item.isObject()) {
                throw ToolError.badArgument("argument '" + key + "' must hold objects");
            }
            out.add(new Args((ObjectNode) item));
        }
        return out;
    }

    /** An integer argument; integral numbers written as strings are accepted. */
    public int integer(final String key) {
        final JsonNode value = required(key);
        if (value.isIntegralNumber() && value.canConvertToInt()) {
            return value.intValue();
        }
        if (value.isNumber() && value.asDouble() == Math.rint(value.asDouble())) {
            return (int) value.asDouble();
        }
        if (value.isTextual()) {
            try {
                return Integer.parseInt(value.asText().trim());
            } catch (NumberFormatException e) {
                // falls through to the error below
            }
        }
        throw ToolError.badArgument("argument '" + key + "' must be an integer");
    }

    /** A numeric argument; numbers written as strings are accepted. */
    public double number(final String key) {
        final JsonNode value = required(key);
        if (value.isNumber()) {
            return value.asDouble();
        }
        if (value.isTextual()) {
            try {
                return Double.parseDouble(value.asText().trim());
            } catch (NumberFormatException e) {
                // falls through to the error below
            }
        }
        throw ToolError.badArgument("argument '" + key + "' must be a number");
    }
}
