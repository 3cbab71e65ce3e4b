package dev.rwml.scoring.score;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a tool output into the tokens ROUGE compares: JSON values are masked to their types ({@code
 * <str>}, {@code <num>}, {@code <bool>}, {@code <null>}) while keys, nesting and list lengths stay,
 * so that a prediction is judged on the shape of the answer rather than on database values it
 * cannot know; {@code Error: ...} messages and other non-JSON text are kept as words.
 */
public final class StructureMasker {

    /** The token a masked string value becomes. */
    public static final String STRING = "<str>";

    /** The token a masked number becomes. */
    public static final String NUMBER = "<num>";

    /** The token a masked boolean becomes. */
    public static final String BOOLEAN = "<bool>";

    /** The token a JSON null becomes. */
    public static final String NULL = "<null>";

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}_]+|[^\\s\\p{L}\\p{N}_]");
    private static final String ERROR_PREFIX = "error:";

    private StructureMasker() {}

    /** The comparison tokens of a tool output (masked JSON, or the words of any other text). */
    public static List<String> tokens(final String output) {
        final String text = output.strip();
        final List<String> tokens = new ArrayList<>();
        final JsonNode json = parseJson(text);
        if (json == null) {
            words(text, tokens);
        } else {
            mask(json, tokens);
        }
        return tokens;
    }

    /** The masked JSON as text, for logs and tests; non-JSON text is returned stripped. */
    public static String masked(final String output) {
        final JsonNode json = parseJson(output.strip());
        return json == null ? output.strip() : String.join(" ", tokens(output));
    }

    private static JsonNode parseJson(final String text) {
        // Only objects and arrays count as structured output: "42" or "true" are answers in words.
        if (text.isEmpty() || (text.charAt(0) != '{' && text.charAt(0) != '[')) {
            return null;
        }
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static void mask(final JsonNode node, final List<String> out) {
        if (node.isObject()) {
            // Keys are sorted: field order carries no meaning in a tool's JSON answer.
            final Map<String, JsonNode> fields = new TreeMap<>();
            for (final Map.Entry<String, JsonNode> field : node.properties()) {
                fields.put(field.getKey(), field.getValue());
            }
            // Separators are left out: they follow from the brackets and would otherwise make
            // any two JSON answers look alike.
            out.add("{");
            for (final Map.Entry<String, JsonNode> field : fields.entrySet()) {
                out.add(field.getKey());
                mask(field.getValue(), out);
            }
            out.add("}");
        } else if (node.isArray()) {
            out.add("[");
            for (final JsonNode element : node) {
                mask(element, out);
            }
            out.add("]");
        } else if (node.isTextual()) {
            final String value = node.asText();
            if (value.strip().toLowerCase(Locale.ROOT).startsWith(ERROR_PREFIX)) {
                words(value, out);
            } else {
                out.add(STRING);
            }
        } else if (node.isNumber()) {
            out.add(NUMBER);
        } else if (node.isBoolean()) {
            out.add(BOOLEAN);
        } else {
            out.add(NULL);
        }
    }

    private static void words(final String text, final List<String> out) {
        final Matcher m = WORD.matcher(text.toLowerCase(Locale.ROOT));
        while (m.find()) {
            out.add(m.group());
        }
    }
}
