package dev.rwml.env.tau2;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One tool call of the agent. Its text form, the action format of the desk, is a JSON object {@code
 * {"arguments": {"order_id": "#W0000001"}, "name": "get_order_details"}} (keys in any order; see
 * {@link DeskAction#parse} for what else is tolerated).
 */
public record ToolCall(String name, ObjectNode arguments) {

    /** A call from alternating argument names and values, e.g. {@code of("f", "order_id", id)}. */
    public static ToolCall of(final String name, final Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("arguments must come as name/value pairs");
        }
        final Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return new ToolCall(name, Tau2Json.mapper().valueToTree(map));
    }

    /** The canonical action text: compact JSON, keys sorted. */
    public String toAction() {
        final Map<String, Object> call = new LinkedHashMap<>();
        call.put("name", name);
        call.put("arguments", arguments);
        return Tau2Json.write(Tau2Json.mapper().valueToTree(call));
    }

    /** The arguments with typed access. */
    public Args args() {
        return new Args(arguments);
    }
}
